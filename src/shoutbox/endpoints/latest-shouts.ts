import { Api, NotFound, SharedAnswer, Successful, Type, okAnswer, type AddonContext, type PublicCall, type SessionUser, Viewer } from '../../sdk/index.js'
import type { ChangeKind } from '../changes/kinds.js'
import { ignoredBy } from '../ignores.js'
import { Kept } from '../kept.js'
import { perContext } from '../per-context.js'
import { pinsRepository } from '../pins-repository.js'
import { withReactions } from '../reactions.js'
import { heldShout, reviewRepository } from '../review.js'
import { canRead, GENERAL_ROOM_SLUG, Rooms, type Room } from '../rooms.js'
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

  async handle ({ ctx, query, user, viewer }: PublicCall<typeof LatestSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(query.room ?? GENERAL_ROOM_SLUG, viewer)
    // A visitor's first load, the same for every visitor: kept (see VisitorsLatest).
    if (user === null && query.limit === undefined) return await VisitorsLatest.of(ctx).of(room)
    return new Successful(await latest(ctx, room, query, user))
  }
}

/**
 * What a visitor (nobody signed in, no `limit`) is answered, per room, kept in memory
 * while no change to it is heard from any process (Kept: a notice, or a gap in them,
 * forgets it; nothing is kept while notices may be missed). Every page view of a site's
 * home page is such a load: it costs no query and no encoding (a SharedAnswer: the host
 * encodes it once), and the ones that arrive together share one read. Who may read the
 * room is decided before, on every request.
 */
class VisitorsLatest {
  static readonly of = perContext(ctx => new VisitorsLatest(ctx))
  private readonly byRoom = new Map<number, Kept<SharedAnswer<LatestFields>>>()

  private constructor (private readonly ctx: AddonContext) {}

  /** The kept answer for `room`'s visitors: one SharedAnswer, encoded once by the host, until a change. */
  async of (room: Room): Promise<Successful> {
    let kept = this.byRoom.get(room.id)
    if (kept === undefined) {
      // One for each room there is; past a bound (rooms made and deleted for long), read each time.
      if (this.byRoom.size >= MAX_KEPT_ROOMS) return new Successful(await latest(this.ctx, room, {}, null))
      const { ctx } = this
      const id = room.id
      // The room is found again at each read: its slug or rules may have changed since.
      kept = new Kept(ctx, async () => {
        const now = (await Rooms.of(ctx).all()).find(each => each.id === id)
        if (now === undefined || !canRead(now, Viewer.visitor)) throw new NotFound()
        return new SharedAnswer(await latest(ctx, now, {}, null))
      }, notice => !UNRELATED.has(notice.kind))
      this.byRoom.set(id, kept)
    }
    return await kept.current()
  }
}

/** Changes that leave what a visitor is shown as it was. */
const UNRELATED: ReadonlySet<ChangeKind> = new Set(['watched-words', 'posting-changed'])
/** Rooms whose visitors' answer is kept, at most. */
const MAX_KEPT_ROOMS = 1000

interface LatestFields {
  readonly shouts: unknown[]
  readonly pinned: unknown[]
  readonly next: number | null
  readonly limit: number
}

async function latest (ctx: AddonContext, room: Room, query: { limit?: number, ignored?: string }, user: SessionUser | null): Promise<LatestFields> {
    const limit = query.limit ?? (await ShoutboxSettings.of(ctx).current()).maxShouts ?? SHOWN_WHEN_UNSET
    // One more than asked: whether it exists decides `next`.
    const excludeAuthors = query.ignored === 'show' ? [] : await ignoredBy(ctx, user)
    const [found, pinned] = await Promise.all([
      shoutsRepository(ctx.db).archive({ room, before: undefined, limit: limit + 1, excludeAuthors }),
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
    return { shouts: answered.slice(0, shouts.length), pinned: answered.slice(shouts.length), next, limit }
}
