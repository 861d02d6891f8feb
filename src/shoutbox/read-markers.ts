import { TooManyRequests, type AddonContext, type Database } from '../sdk/index.js'
import { perContext } from './per-context.js'
import { READ_MARKERS_TABLE, SHOUTS_TABLE } from './tables.js'

/** Unread shouts are counted up to this many a room ("99+" is what a tab shows anyway). */
export const UNREAD_COUNTED = 100

/** How far a member has read a room, and how many newer shouts of others it holds (at most UNREAD_COUNTED). */
export interface ReadState {
  readonly lastReadId: number
  readonly unread: number
}

/** The read markers: one row per member and room, moved only forward. */
export function readMarkersRepository (db: Database) {
  return {
    /**
     * For each of `roomIds`, how far `userId` has read it (0: never) and the shouts newer
     * than that which others wrote, counted up to UNREAD_COUNTED: one statement, an index
     * walk of at most that many rows a room.
     */
    async states (userId: number, roomIds: readonly number[]): Promise<Map<number, ReadState>> {
      if (roomIds.length === 0) return new Map()
      const { rows } = await db.raw<{ rows: Array<{ room_id: number, last_read_id: string | number, unread: string | number }> }>(`
        select r.room_id, coalesce(m.last_read_id, 0) as last_read_id,
          (select count(*) from (select 1 from ?? s
             where s.room_id = r.room_id and s.id > coalesce(m.last_read_id, 0) and s.state is null and s.author_id is distinct from ?
             limit ?) as newer) as unread
        from unnest(?::int[]) as r(room_id)
        left join ?? m on m.room_id = r.room_id and m.user_id = ?`,
      [SHOUTS_TABLE, userId, UNREAD_COUNTED, [...roomIds], READ_MARKERS_TABLE, userId])
      return new Map(rows.map(row => [row.room_id, { lastReadId: Number(row.last_read_id), unread: Number(row.unread) }]))
    },

    /**
     * Marks `roomId` read by `userId` up to `lastReadId`, but never past the room's newest
     * shout (a marker cannot pass shouts not yet written) and never back: answers the
     * marker as it is now.
     */
    async markRead (userId: number, roomId: number, lastReadId: number): Promise<number> {
      const { rows: [row] } = await db.raw<{ rows: Array<{ last_read_id: string | number }> }>(`
        insert into ?? as m (user_id, room_id, last_read_id, updated_at)
        values (?, ?, least(?::bigint, (select coalesce(max(id), 0) from ?? where room_id = ?)), ?)
        on conflict (user_id, room_id) do update set last_read_id = greatest(m.last_read_id, excluded.last_read_id), updated_at = excluded.updated_at
        returning last_read_id`,
      [READ_MARKERS_TABLE, userId, roomId, lastReadId, SHOUTS_TABLE, roomId, Date.now()])
      return Number(row?.last_read_id ?? 0)
    }
  }
}

/** Read markers one member may write a minute: a page marks a room read as it shows new shouts, far less often. */
export const MARKS_PER_MINUTE = 120
/** Members whose allowance is kept before the full ones are forgotten (a full allowance is the same as none kept). */
const KEPT_ALLOWANCES = 10_000

/**
 * Each member's allowance of marks in this process: a bucket of MARKS_PER_MINUTE, refilled
 * at that many a minute, so a burst gets the bucket and then two a second, however the
 * burst falls across the clock's minutes (a bound on writes, not an exact count across processes).
 */
export class MarkLimits {
  static readonly of = perContext((_ctx: AddonContext) => new MarkLimits())
  private readonly buckets = new Map<number, { left: number, at: number }>()

  /** Takes one mark of `userId`'s allowance; none left → 429 with the seconds until there is one. */
  admit (userId: number, now = Date.now()): void {
    const perMs = MARKS_PER_MINUTE / 60_000
    const bucket = this.buckets.get(userId) ?? { left: MARKS_PER_MINUTE, at: now }
    const left = Math.min(MARKS_PER_MINUTE, bucket.left + (now - bucket.at) * perMs)
    if (left < 1) throw new TooManyRequests((1 - left) / perMs / 1000)
    if (this.buckets.size >= KEPT_ALLOWANCES) this.forgetFull(now)
    this.buckets.set(userId, { left: left - 1, at: now })
  }

  private forgetFull (now: number): void {
    const perMs = MARKS_PER_MINUTE / 60_000
    for (const [userId, bucket] of this.buckets) if (bucket.left + (now - bucket.at) * perMs >= MARKS_PER_MINUTE) this.buckets.delete(userId)
  }
}
