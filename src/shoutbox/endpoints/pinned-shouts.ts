import { Api, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { CHANGED } from '../changes/notice.js'
import { pinsRepository } from '../pins-repository.js'
import { nextPinned } from '../changes/pinned.js'
import { SHOUT_EXAMPLE, ShoutSchema } from '../schemas.js'

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
  override readonly answers = { ok: okAnswer({ shouts: Type.Array(ShoutSchema, { description: 'newest pin first' }) }, { shouts: [SHOUT_EXAMPLE] }) }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    return new Successful({ shouts: await pinsRepository(ctx.db).list() })
  }
}
