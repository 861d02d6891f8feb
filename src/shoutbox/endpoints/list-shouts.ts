import { Api, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { nextList } from '../changes/list.js'
import { CHANGED } from '../changes/notice.js'
import { SHOUT_EXAMPLE, ShoutSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * GET /api/shoutbox/list — public: the shouts, newest first, at most `maxShouts` of them.
 * The host keeps the answer and serves it from memory (`If-None-Match` gets a 304); each
 * change announced from any process is applied to it in place (`nextList`), and this
 * runs only when that cannot be done.
 */
export class ListShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/list'
  readonly schema = {}
  override readonly cache = { topic: CHANGED, update: nextList }
  // Sent as the kept answer's bytes (the host encodes it); a test checks them against this.
  override readonly answers = { ok: okAnswer({ shouts: Type.Array(ShoutSchema, { description: 'newest first' }) }, { shouts: [SHOUT_EXAMPLE] }) }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    const { maxShouts } = await ShoutboxSettings.of(ctx).current()
    return new Successful({ shouts: await shoutsRepository(ctx.db).list(maxShouts) })
  }
}
