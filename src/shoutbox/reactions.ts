import { BadRequest, NotFound, prepared, type AddonContext, type Database, type MemberViewer, type SessionUser, type Transaction } from '../sdk/index.js'
import type { ReactionCounts } from './changes/kinds.js'
import { Muted } from './errors.js'
import { announceChange } from './changes/notice.js'
import { MINUTE_MS, withinMinute } from './flood-control.js'
import { perContext } from './per-context.js'
import { assertMayPost } from './posting.js'
import { canRead, Rooms } from './rooms.js'
import type { Reaction } from './schemas.js'
import { ShoutboxSettings } from './settings.js'
import { shoutsRepository } from './shouts-repository.js'
import { StreamHub } from './stream-hub.js'
import { EVENTS_TABLE, FLOOD_CONTROL_TABLE, MUTES_TABLE, REACTIONS_TABLE, SHOUTS_TABLE } from './tables.js'

/** The shout was deleted while a reaction to it was being stored. */
const PG_FOREIGN_KEY_VIOLATION = '23503'

/** Reaction changes one member may make a minute, in every process together. */
export const REACTIONS_PER_MINUTE = 30
/**
 * How long a reaction waits at most for a delivery under way to every reader of this
 * process (a publish's event to 10,000 streams takes about 100 ms of one core): the
 * reaction's answer waits, the readers do not.
 */
const YIELD_TO_DELIVERY_MS = 250
/** A shout's reaction counts go on the stream at most once in this long (later changes wait, and go together). */
export const REACTIONS_EVENT_EVERY_MS = 1000
/** Pending counts are sent at multiples of this: those of shouts due within one step go together. */
const ANNOUNCE_GRID_MS = 500

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })
/** A grapheme that is an emoji: it starts with a pictograph, a flag's letters or a keycap's digit and ends as one. */
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[0-9#*]\uFE0F?\u20E3)/u

/** True when `text` is one grapheme, and an emoji. */
export function isSingleEmoji (text: string): boolean {
  const [first, second] = graphemes.segment(text)
  return first !== undefined && second === undefined && EMOJI.test(text) && !/\s/u.test(text)
}

/** The `reactions` setting: each one emoji (400 BAD_REQUEST naming the first that is not). */
export function assertReactionSet (set: readonly string[]): void {
  const wrong = set.find(item => !isSingleEmoji(item))
  if (wrong !== undefined) throw new BadRequest({ reason: 'each reaction is one emoji', value: wrong })
}

/** One emoji's count on a shout as the database groups it, and whether the viewer's reaction is among them. */
interface ReactionRow {
  readonly emoji: string
  readonly count: number | string
  readonly mine: boolean
}

/** A shout's rows as its answer shows them: in the set's order, `mine` only for a signed-in viewer. */
function reactionsOf (rows: readonly ReactionRow[], set: readonly string[], viewerId: number | null): Reaction[] {
  const order = new Map(set.map((emoji, i) => [emoji, i]))
  return [...rows].sort((a, b) => order.get(a.emoji)! - order.get(b.emoji)!)
    .map(row => viewerId === null ? { emoji: row.emoji, count: Number(row.count) } : { emoji: row.emoji, count: Number(row.count), mine: row.mine })
}

/** The reactions: one row per member, shout and emoji. */
export function reactionsRepository (db: Database) {
  return {
    /**
     * The nonzero counts of each of `shoutIds`, the emoji of `set` only and in its order;
     * with `viewerId`, whether that user's reaction is among them (`mine`).
     */
    async of (shoutIds: readonly number[], set: readonly string[], viewerId: number | null, trx: Database = db): Promise<Map<number, Reaction[]>> {
      const found = new Map<number, Reaction[]>()
      if (shoutIds.length === 0) return found
      const rows = await trx(REACTIONS_TABLE).whereIn('shout_id', [...shoutIds]).whereIn('emoji', [...set])
        .groupBy('shout_id', 'emoji')
        .select<Array<ReactionRow & { shout_id: number | string }>>(
          'shout_id', 'emoji', db.raw('count(*) as count'), db.raw('coalesce(bool_or(user_id = ?), false) as mine', [viewerId ?? 0]))
      const byShout = new Map<number, ReactionRow[]>()
      for (const row of rows) {
        const id = Number(row.shout_id)
        const shoutRows = byShout.get(id)
        if (shoutRows === undefined) byShout.set(id, [row])
        else shoutRows.push(row)
      }
      for (const [id, shoutRows] of byShout) found.set(id, reactionsOf(shoutRows, set, viewerId))
      return found
    },

    /**
     * What a reaction to `shoutId` by `userId` must know first, in one round trip: the
     * shout's room (undefined: there is no such shout), and, when `mutes` is asked, the
     * mute that stops the member posting at `now` (`muted`, and `until`: null for one until
     * lifted).
     */
    async target (shoutId: number, userId: number, now: number, mutes: boolean): Promise<{ roomId: number | undefined, muted: boolean, until: number | null }> {
      const { rows } = await prepared(db.raw<{ rows: Array<{ room_id: number | null, muted: boolean, until: number | string | null }> }>(`
        select (select room_id from ?? where id = ? and state is null) as room_id, m.user_id is not null as muted, m.until
        from (select 1) as one left join ?? as m on ? and m.user_id = ? and (m.until is null or m.until > ?)`,
      [SHOUTS_TABLE, shoutId, MUTES_TABLE, mutes, userId, now]))
      const row = rows[0]!
      return { roomId: row.room_id ?? undefined, muted: row.muted, until: row.until === null ? null : Number(row.until) }
    },

    /**
     * Adds (`on`) or takes back `userId`'s `emoji` on the shout, counted against
     * REACTIONS_PER_MINUTE in the member's flood-control row: one statement, its own
     * transaction, locks the member's row, keeps their changes of the last minute, and —
     * when one more is allowed — notes this one and adds the reaction. So every process
     * counts the same, and members reacting together never wait for each other. A take-back
     * is a second statement once the first has counted it: a statement's reads see the
     * database as it began, before any wait for the member's row, so a delete in the same
     * statement would miss the member's own add committed during that wait (an add runs
     * into a concurrent delete by its conflict check, not by those reads). True when the
     * change changed anything; TOO_MANY_REQUESTS, with the seconds to wait, past the limit
     * (nothing changed).
     */
    async change (shoutId: number, userId: number, emoji: string, on: boolean, now = Date.now()): Promise<boolean> {
      const statement = (): Promise<{ rows: Array<{ found: number | string, kept: number[], admitted: number | string, changed: number | string }> }> => prepared(db.raw(`
        with f as (select reactions_recent from ?? where author_id = ? for update),
        recent as (
          select coalesce((select jsonb_agg(e.at order by e.i) from f, jsonb_array_elements(f.reactions_recent) with ordinality as e(at, i)
            where (e.at)::bigint > ?), '[]'::jsonb) as kept
        ),
        admitted as (
          update ?? as flood set reactions_recent = recent.kept || to_jsonb(?::bigint)
          from recent where flood.author_id = ? and jsonb_array_length(recent.kept) < ?
          returning 1
        ),
        added as (
          insert into ?? (shout_id, user_id, emoji, created_at) select ?::bigint, ?::integer, ?::text, ?::bigint
          where ?::boolean and exists (select 1 from admitted)
          on conflict (shout_id, emoji, user_id) do nothing returning 1
        )
        select (select count(*) from f) as found, (select kept from recent) as kept, (select count(*) from admitted) as admitted,
          (select count(*) from added) as changed`,
      [FLOOD_CONTROL_TABLE, userId, now - MINUTE_MS,
        FLOOD_CONTROL_TABLE, now, userId, REACTIONS_PER_MINUTE,
        REACTIONS_TABLE, shoutId, userId, emoji, now, on]))
      let row = (await statement()).rows[0]!
      if (Number(row.found) === 0) {
        // A member's first action writes their row.
        await db(FLOOD_CONTROL_TABLE).insert({ author_id: userId }).onConflict('author_id').ignore()
        row = (await statement()).rows[0]!
      }
      // Throws TOO_MANY_REQUESTS with the wait: the minute is full.
      if (Number(row.admitted) === 0) withinMinute(row.kept.map(Number), REACTIONS_PER_MINUTE, now)
      if (on) return Number(row.changed) > 0
      // `returning`, not the count: the embedded database's driver answers no count.
      const removed = await db(REACTIONS_TABLE).where({ shout_id: shoutId, user_id: userId, emoji }).delete().returning('shout_id')
      return removed.length > 0
    },

    /**
     * After a change: whether the shout's counts may go on the stream now (last announced a
     * second ago or more: then it is noted as announced now), or else when they last went
     * (they are marked pending). `onlyPending`: claims only counts marked pending (the
     * announcement that waited). One statement: the shout's row is locked for it alone,
     * so members reacting to one shout at once do not wait for each other's transactions.
     * With `answer`, it also reads the shout's counts as `of` gives them to its viewer
     * (`counts`; the statement starts after the change committed, so they hold it).
     */
    async claim (shoutId: number, onlyPending: boolean, answer?: { set: readonly string[], viewerId: number }): Promise<{ due: boolean, pending: boolean, announcedAt: number, roomId: number, counts: Reaction[] } | undefined> {
      const now = Date.now()
      const counts = answer === undefined
        ? { sql: 'null', bindings: [] }
        : {
            sql: `(select coalesce(json_agg(json_build_object('emoji', r.emoji, 'count', r.count, 'mine', r.mine)), '[]'::json)
              from (select emoji, count(*) as count, coalesce(bool_or(user_id = ?), false) as mine from ?? where shout_id = ?
                and emoji in (select jsonb_array_elements_text(?::jsonb)) group by emoji) as r)`,
            // The set as one value: the statement's text stays the same for every set (it is prepared).
            bindings: [answer.viewerId, REACTIONS_TABLE, shoutId, JSON.stringify(answer.set)]
          }
      const { rows } = await prepared(db.raw<{ rows: Array<{ due: boolean, pending: boolean, announced_at: number | string, room_id: number, counts: ReactionRow[] | null }> }>(`
        with s as (
          select id, reactions_announced_at <= ? and (reactions_pending or not ?) as due from ?? where id = ? for update
        )
        update ?? as shout set
          reactions_announced_at = case when s.due then ? else shout.reactions_announced_at end,
          reactions_pending = case when s.due then false when ? then shout.reactions_pending else true end
        from s where shout.id = s.id
        returning s.due, shout.reactions_pending as pending, shout.reactions_announced_at as announced_at, shout.room_id, ${counts.sql} as counts`,
      [now - REACTIONS_EVENT_EVERY_MS, onlyPending, SHOUTS_TABLE, shoutId, SHOUTS_TABLE, now, onlyPending, ...counts.bindings]))
      const row = rows[0]
      if (row === undefined) return undefined
      return {
        due: row.due,
        pending: row.pending,
        announcedAt: Number(row.announced_at),
        roomId: row.room_id,
        counts: answer === undefined ? [] : reactionsOf(row.counts ?? [], answer.set, answer.viewerId)
      }
    },

    /**
     * Writes the shout's counts as a `shout-reactions` event of the stream's history: the
     * event. Its time is the shout's announcement time too, so the next one is a whole
     * second after this one is sent, not after it was claimed.
     */
    async record (shoutId: number, room: string, set: readonly string[], trx: Transaction): Promise<{ id: number, shout: ReactionCounts }> {
      const counts = (await this.of([shoutId], set, null, trx)).get(shoutId) ?? []
      const shout: ReactionCounts = { id: shoutId, room, reactions: counts }
      const now = Date.now()
      await trx(SHOUTS_TABLE).where({ id: shoutId }).update({ reactions_announced_at: now })
      const [event] = await trx(EVENTS_TABLE).insert({ kind: 'shout-reactions', shout: JSON.stringify(shout), created_at: now }).returning<Array<{ id: number | string }>>('id')
      return { id: Number(event!.id), shout }
    }
  }
}

/**
 * Members' reactions, and their stream events. A change is one statement (the member's
 * reaction and their count against the limit); then, if the shout's counts last went on
 * the stream a second ago or more, they go now; else they are marked pending and this
 * process sends them when the second is up — with every change made meanwhile, in any
 * process (whichever process comes first writes the event; the others find nothing
 * pending). So a shout's counts go on the stream at most once a second, however many
 * members react at once, and members reacting together never queue behind one lock.
 * Pending counts are sent on a half-second grid, so those of shouts due within the same
 * half second go together: one change, one write to each stream, not one a shout.
 */
export class Reactions {
  static readonly of = perContext(ctx => new Reactions(ctx))
  /** The pending announcements this process will make, by the time on the grid they are due at: the shouts, and the timer. */
  private readonly ticks = new Map<number, { readonly shouts: Set<number>, readonly timer: NodeJS.Timeout }>()
  /** The shouts among them. */
  private readonly waiting = new Set<number>()
  /** Those whose announcement failed after its claim: announced whether or not marked pending. */
  private readonly retrying = new Set<number>()
  private stopped = false

  private constructor (private readonly ctx: AddonContext) {}

  /**
   * `user` adds (`on`) or takes back their `emoji` on shout `shoutId`. The shout must be in
   * a room they may read (else 404, as for a shout that does not exist) and post in (403;
   * 409 in an archived room); a muted member may not react; the emoji must be one of the
   * site's set (400). Answers the shout's counts, with `mine`.
   */
  async react (viewer: MemberViewer, shoutId: number, emoji: string, on: boolean): Promise<Reaction[]> {
    const { ctx } = this
    const { user } = viewer
    const settings = await ShoutboxSettings.of(ctx).current()
    if (!settings.reactions.includes(emoji)) throw new BadRequest({ reason: 'not one of the site\'s reactions', reactions: settings.reactions })
    // Readers first: a delivery under way to every stream here ends before this one's work begins.
    await StreamHub.of(ctx).delivered(YIELD_TO_DELIVERY_MS)
    const repository = reactionsRepository(ctx.db)
    // Holders of MANAGE_SHOUTBOX are never muted (a mute left from before does not hold them).
    const [rooms, target] = await Promise.all([Rooms.of(ctx).all(), repository.target(shoutId, user.id, Date.now(), !ctx.permissions.has(user, 'MANAGE_SHOUTBOX'))])
    if (target.muted) throw new Muted(target.until)
    const room = rooms.find(each => each.id === target.roomId)
    if (room === undefined || !canRead(room, viewer)) throw new NotFound()
    assertMayPost(room, viewer)
    let changed: boolean
    try {
      changed = await repository.change(shoutId, user.id, emoji, on)
    } catch (error) {
      // Deleted since it was found: as if it never was.
      if ((error as { code?: unknown }).code === PG_FOREIGN_KEY_VIOLATION) throw new NotFound()
      throw error
    }
    const answer = { set: settings.reactions, viewerId: user.id }
    if (changed) return await this.announce(shoutId, answer)
    return (await repository.of([shoutId], settings.reactions, user.id)).get(shoutId) ?? []
  }

  /**
   * Announces the shout's pending counts at the first point of the half-second grid from
   * `dueAt` (with any other shout's due then), unless this process already will. With
   * `retry`, the counts are announced whether or not they are marked pending (an
   * announcement that failed after its claim).
   */
  private announceLater (shoutId: number, dueAt: number, retry = false): void {
    if (retry) this.retrying.add(shoutId)
    if (this.stopped || this.waiting.has(shoutId)) return
    this.waiting.add(shoutId)
    const at = Math.ceil(dueAt / ANNOUNCE_GRID_MS) * ANNOUNCE_GRID_MS
    let tick = this.ticks.get(at)
    if (tick === undefined) {
      const shouts = new Set<number>()
      tick = {
        shouts,
        timer: setTimeout(() => {
          this.ticks.delete(at)
          const any = new Set<number>()
          for (const id of shouts) {
            this.waiting.delete(id)
            if (this.retrying.delete(id)) any.add(id)
          }
          void this.announceTogether([...shouts], any)
        }, Math.max(at - Date.now(), 0)).unref()
      }
      this.ticks.set(at, tick)
    }
    tick.shouts.add(shoutId)
  }

  /**
   * The pending counts of `shoutIds` (of those in `any`, their counts, pending or not):
   * those due go on the stream together, as one change; one not due yet (another process
   * announced it meanwhile) waits for its turn. Should a claim fail, or the writing after
   * the claims, those shouts are tried again a second later, so no count stays stale until
   * the next change.
   */
  private async announceTogether (shoutIds: readonly number[], any: ReadonlySet<number>): Promise<void> {
    const { ctx } = this
    const repository = reactionsRepository(ctx.db)
    const claims = await Promise.allSettled(shoutIds.map(async id => await repository.claim(id, !any.has(id))))
    const due: Array<{ id: number, roomId: number }> = []
    for (const [i, settled] of claims.entries()) {
      const id = shoutIds[i]!
      if (settled.status === 'rejected') {
        ctx.log.warn({ err: settled.reason, shoutId: id }, 'could not claim the announcement of reactions; trying again in a second')
        this.announceLater(id, Date.now() + REACTIONS_EVENT_EVERY_MS, true)
        continue
      }
      const claim = settled.value
      if (claim?.due === true) due.push({ id, roomId: claim.roomId })
      else if (claim?.pending === true) this.announceLater(id, claim.announcedAt + REACTIONS_EVENT_EVERY_MS)
    }
    if (due.length === 0) return
    try {
      await this.record(due)
    } catch (error) {
      ctx.log.warn({ err: error, shouts: due.map(({ id }) => id) }, 'could not announce reactions; trying again in a second')
      for (const { id } of due) this.announceLater(id, Date.now() + REACTIONS_EVENT_EVERY_MS, true)
    }
  }

  /**
   * After a change: puts the shout's counts on the stream if they may go now, else makes
   * sure they go when they may. Answers the shout's counts for `answer`'s viewer, read with
   * the claim.
   */
  async announce (shoutId: number, answer: { set: readonly string[], viewerId: number }): Promise<Reaction[]> {
    const { ctx } = this
    const claim = await reactionsRepository(ctx.db).claim(shoutId, false, answer)
    if (claim === undefined) return []
    if (!claim.due) {
      if (claim.pending) this.announceLater(shoutId, claim.announcedAt + REACTIONS_EVENT_EVERY_MS)
      return claim.counts
    }
    await this.record([{ id: shoutId, roomId: claim.roomId }])
    return claim.counts
  }

  /** Writes the claimed shouts' counts as `shout-reactions` events, and announces them as one change, in one transaction. */
  private async record (claimed: ReadonlyArray<{ id: number, roomId: number }>): Promise<void> {
    const { ctx } = this
    const repository = reactionsRepository(ctx.db)
    const [settings, rooms] = await Promise.all([ShoutboxSettings.of(ctx).current(), Rooms.of(ctx).all()])
    await ctx.transaction(async trx => {
      const events = []
      for (const { id, roomId } of claimed) {
        // A room this process does not know of: nothing to say in it.
        const room = rooms.find(each => each.id === roomId)
        if (room !== undefined) events.push({ ...await repository.record(id, room.slug, settings.reactions, trx), kind: 'shout-reactions' as const })
      }
      if (events.length > 0) await announceChange(ctx, 'shout-reactions', events, trx)
    })
  }

  /** Forgets the announcements not yet made (the addon stops; the next change of those shouts announces them). */
  stop (): void {
    this.stopped = true
    for (const { timer } of this.ticks.values()) clearTimeout(timer)
    this.ticks.clear()
    this.waiting.clear()
    this.retrying.clear()
  }
}

/**
 * `shouts` with their reactions (`mine` for a signed-in `viewer`), `bot: true` on a bot's, `edited` on a changed one's,
 * `uploads` on one with pictures:
 * what every answer but the seed's list shows. Two queries, whatever their number.
 */
export async function withReactions<S extends { id: number }> (ctx: AddonContext, shouts: readonly S[], viewer: SessionUser | null): Promise<Array<S & { reactions: Reaction[] }>> {
  const { reactions: set } = await ShoutboxSettings.of(ctx).current()
  const ids = shouts.map(shout => shout.id)
  const counts = await reactionsRepository(ctx.db).of(ids, set, viewer?.id ?? null)
  const { bots, via, guests, edited, pictures } = await shoutsRepository(ctx.db).marks(ids)
  return shouts.map(shout => {
    const changed = edited.get(shout.id)
    const shown = pictures.get(shout.id)
    // `bot`, `via`, `guest`, `edited` and `uploads` come after the reactions, whether or not the shout came with them.
    const { bot: _bot, via: _via, guest: _guest, edited: _edited, uploads: _uploads, ...fields } = shout as S & { bot?: true, via?: string, guest?: true, edited?: number, uploads?: unknown }
    return {
      ...fields as S,
      reactions: counts.get(shout.id) ?? [],
      ...(bots.has(shout.id) ? { bot: true as const } : {}),
      ...(via.has(shout.id) ? { via: via.get(shout.id)! } : {}),
      ...(guests.has(shout.id) ? { guest: true as const } : {}),
      ...(changed === undefined ? {} : { edited: changed }),
      ...(shown === undefined ? {} : { uploads: shown })
    }
  })
}
