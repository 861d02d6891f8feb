import { Api, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { CHANGED } from '../changes/notice.js'
import { pinsRepository } from '../pins-repository.js'
import { nextPinned } from '../changes/pinned.js'
import { GENERAL_ROOM } from '../rooms.js'
import { ROOM_SHOUT_EXAMPLE, RoomShoutSchema } from '../schemas.js'

/**
 * GET /api/shoutbox/pinned — public: the default room's pinned shouts, newest pin first
 * (a room's own: `/api/shoutbox/rooms/:slug/pinned`). Kept and served
 * from memory like the list; a publish or a settings change keeps it as it is, a pin or
 * an unpin makes it anew (see nextPinned).
 */
export class PinnedShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/pinned'
  readonly schema = {}
  override readonly cache = { topic: CHANGED, update: nextPinned }
  override readonly answers = { ok: okAnswer({ shouts: Type.Array(RoomShoutSchema, { description: 'newest pin first' }) }, { shouts: [ROOM_SHOUT_EXAMPLE] }) }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    return new Successful({ shouts: await pinsRepository(ctx.db).list(GENERAL_ROOM) })
  }
}
