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
             where s.room_id = r.room_id and s.id > coalesce(m.last_read_id, 0) and s.author_id is distinct from ?
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

/** The marks each member wrote in this process in the current minute (a bound on writes, not an exact count across processes). */
export class MarkLimits {
  static readonly of = perContext((_ctx: AddonContext) => new MarkLimits())
  private minute = 0
  private readonly counts = new Map<number, number>()

  /** Counts one mark of `userId`; past MARKS_PER_MINUTE this minute → 429 with the seconds to the next. */
  admit (userId: number, now = Date.now()): void {
    const minute = Math.floor(now / 60_000)
    if (minute !== this.minute) {
      this.minute = minute
      this.counts.clear()
    }
    const count = (this.counts.get(userId) ?? 0) + 1
    if (count > MARKS_PER_MINUTE) throw new TooManyRequests((minute + 1) * 60 - now / 1000)
    this.counts.set(userId, count)
  }
}
