import { Api, Successful, type PublicCall } from '../../sdk/index.js'
import { CHANGED } from '../change-notices.js'
import { pinsRepository } from '../pins-repository.js'
import { nextPinned } from '../pinned-changes.js'

/**
 * GET /api/shoutbox/pinned — public: the pinned shouts, newest pin first. Kept and served
 * from memory like the list; a publish or a settings change keeps it as it is, a pin or
 * an unpin makes it anew (see nextPinned).
 */
export class PinnedShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/pinned'
  readonly schema = {}
  override readonly cache = { topic: CHANGED, update: nextPinned }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    return new Successful({ shouts: await pinsRepository(ctx.db).list() })
  }
}
