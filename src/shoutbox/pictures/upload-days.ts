import { TooManyRequests, type Database } from '../../sdk/index.js'
import { UPLOAD_DAYS_TABLE } from '../tables.js'

/** Pictures one member may upload a UTC day. */
export const UPLOADS_PER_DAY = 20

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Counts `userId`'s upload of today (UTC) before it is decoded — a refused picture cost the
 * decoding all the same — and refuses the one past UPLOADS_PER_DAY with 429 and
 * Retry-After (the next UTC day). One statement: two uploads at once, on any process,
 * are counted one after the other. Yesterday's rows go as today's are written.
 */
export async function countUpload (db: Database, userId: number, now = Date.now()): Promise<void> {
  const day = Math.floor(now / DAY_MS)
  const { rows: [row] } = await db.raw<{ rows: Array<{ count: number }> }>(`
    insert into ?? as d (user_id, day, count) values (?, ?, 1)
    on conflict (user_id, day) do update set count = d.count + 1 where d.count < ?
    returning count`, [UPLOAD_DAYS_TABLE, userId, day, UPLOADS_PER_DAY])
  if (row === undefined) throw new TooManyRequests(((day + 1) * DAY_MS - now) / 1000)
  if (row.count === 1) await db(UPLOAD_DAYS_TABLE).where({ user_id: userId }).where('day', '<', day).delete()
}
