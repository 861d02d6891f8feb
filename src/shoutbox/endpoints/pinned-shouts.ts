import { Api, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { CHANGED } from '../changes/notice.js'
import { pinsRepository } from '../pins-repository.js'
import { withReactions } from '../reactions.js'
import { nextPinned } from '../changes/pinned.js'
import { GENERAL_ROOM } from '../rooms.js'
import { ROOM_SHOUT_EXAMPLE, FullShoutSchema } from '../schemas.js'

/**
 * GET /api/shoutbox/pinned — public: the default room's pinned shouts, newest pin first
 * (a room's own: `/api/shoutbox/rooms/:slug/pinned`). Kept and served
 * from memory like the list; a publish or a settings change keeps it as it is, a pin or
 * an unpin makes it anew, a reaction recounts it (see nextPinned). Every reader gets the
 * same answer: its reactions carry no `mine`.
 */
export class PinnedShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/pinned'
  readonly schema = {}
  override readonly cache = { topic: CHANGED, update: nextPinned }
  override readonly answers = { ok: okAnswer({ shouts: Type.Array(FullShoutSchema, { description: 'newest pin first' }) }, { shouts: [ROOM_SHOUT_EXAMPLE] }) }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    // One answer for everyone, kept: the counts without `mine` (a room's pinned answer has it).
    return new Successful({ shouts: await withReactions(ctx, await pinsRepository(ctx.db).list(GENERAL_ROOM), null) })
  }
}
