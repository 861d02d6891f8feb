import { prepared, type Database, type Transaction } from '../sdk/index.js'
import type { ReactionCounts } from './changes/kinds.js'
import { MINUTE_MS, withinMinute } from './flood-control.js'
import type { Reaction } from './schemas.js'
import { EVENTS_TABLE, FLOOD_CONTROL_TABLE, MUTES_TABLE, REACTIONS_TABLE, SHOUTS_TABLE } from './tables.js'

/** Reaction changes one member may make a minute, in every process together. */
export const REACTIONS_PER_MINUTE = 30
/** A shout's reaction counts go on the stream at most once in this long (later changes wait, and go together). */
export const REACTIONS_EVENT_EVERY_MS = 1000

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

/**
 * The reactions: one row per member, shout and emoji; the member's changes counted
 * against REACTIONS_PER_MINUTE; a shout's counts and when they last went on the stream.
 * (Reactions' rules, and their events, are `reactions.ts`'s.)
 */
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
