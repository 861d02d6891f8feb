import { Api, NotFound, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { ignoredBy } from '../ignores.js'
import { pinsRepository } from '../pins-repository.js'
import { withReactions } from '../reactions.js'
import { heldShout, reviewRepository } from '../review.js'
import { GENERAL_ROOM_SLUG, Rooms } from '../rooms.js'
import { LatestSchema, NewestShoutsSchema, NextPageSchema, ROOM_SHOUT_EXAMPLE, FullShoutSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'

/** How many shouts a page shows when `maxShouts` is unset: the list would be every shout ever posted. */
export const SHOWN_WHEN_UNSET = 50

/**
 * GET /api/shoutbox/latest?room=&limit= — public: what a page that shows a room (the
 * default room unless `room` names another the caller may read) loads once,
 * in one answer — the newest shouts (`limit` of them, or `maxShouts`, 50 when unset),
 * the pinned ones (newest pin first), `next`, the archive's `before` for the shouts older
 * than these (null when there are none), and `limit`, how many it shows at most (a page
 * that keeps the list current lets its oldest go past it). A signed-in caller's own shouts
 * waiting for review are among them, marked `held`. The widget loads it first and after a
 * stream `reset`; between the two it applies the stream's events.
 */
export class LatestShouts extends Api<typeof LatestSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/latest'
  readonly schema = LatestSchema
  override readonly readsSession = true
  override readonly answers = {
    ok: okAnswer({
      shouts: NewestShoutsSchema,
      pinned: Type.Array(FullShoutSchema, { description: 'newest pin first' }),
      next: NextPageSchema,
      limit: Type.Integer({ minimum: 0, description: 'how many shouts it shows at most' })
    }, { shouts: [ROOM_SHOUT_EXAMPLE], pinned: [], next: null, limit: 50 }),
    errors: [NotFound]
  }

  async handle ({ ctx, query, user }: PublicCall<typeof LatestSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(query.room ?? GENERAL_ROOM_SLUG, user)
    const limit = query.limit ?? (await ShoutboxSettings.of(ctx).current()).maxShouts ?? SHOWN_WHEN_UNSET
    // One more than asked: whether it exists decides `next`.
    const excludeAuthors = query.ignored === 'show' ? [] : await ignoredBy(ctx, user)
    const [found, pinned] = await Promise.all([
      shoutsRepository(ctx.db).archive({ room, before: undefined, limit: limit + 1, q: undefined, excludeAuthors }),
      pinsRepository(ctx.db).list(room)
    ])
    // The caller's own held shouts, waiting for review, in their places: shown to them alone.
    const held = user === null ? [] : await reviewRepository(ctx.db).heldOf(user.id, room.id)
    const shouts = [...found.slice(0, limit), ...held.filter(shout => limit > 0 && (found.length <= limit || shout.id > found[limit - 1]!.id)).map(shout => heldShout(shout, room.slug))]
      .sort((a, b) => b.id - a.id)
    // With maxShouts 0 it shows none: the older shouts are all of them.
    const next = found.length <= limit ? null : limit === 0 ? found[0]!.id + 1 : found[limit - 1]!.id
    // One read of the reactions for both lists.
    const answered = await withReactions(ctx, [...shouts, ...pinned], user)
    return new Successful({ shouts: answered.slice(0, shouts.length), pinned: answered.slice(shouts.length), next, limit })
  }
}
