import { createHash } from 'node:crypto'
import { TooManyRequests, type Transaction } from '../sdk/index.js'
import { DuplicateShout } from './errors.js'
import type { Settings } from './schemas.js'
import { FLOOD_CONTROL_TABLE as TABLE } from './tables.js'

export const MINUTE_MS = 60_000
/** The same text again within this long is a duplicate. */
const DUPLICATE_WITHIN_MS = 60_000

interface Row {
  readonly recent: number[]
  readonly last_posted_at: number | null
  readonly last_digest: string | null
  /** When the member last posted in each room (by room id), for the rooms' slow mode. */
  readonly room_posted_at: Record<string, number>
}

export type FloodRules = Pick<Settings, 'minSecondsBetweenShouts' | 'maxShoutsPerMinute'> & {
  /** The room posted in, and its slow mode: at least this many seconds since the member's last post there. */
  readonly room: { readonly id: number, readonly slowModeSeconds: number }
}

/**
 * Admits a member's post under the flood rules, or refuses it: the same text as their
 * previous post within a minute → DUPLICATE_SHOUT; sooner than `minSecondsBetweenShouts`
 * after it, or more than `maxShoutsPerMinute` in the last minute → TOO_MANY_REQUESTS
 * with the seconds to wait; and sooner than the room's `slowModeSeconds` after their last
 * post in that room, the same. An admitted post is counted at once — or, given `trx`, when
 * that transaction commits (an edit is counted with the edit itself). An edit of one's
 * own shout is a post here: each puts new text in front of every reader.
 *
 * The state is the member's row in the database, locked while it is read and counted,
 * so posts sent at the same moment to any number of host processes are admitted one
 * after the other; deleting one's shouts does not give the allowance back.
 */
/** The member's flood-control row (its `columns`), made if missing and locked until `trx` ends: posts or reactions sent at once to any number of processes are counted one after the other. */
export async function lockFloodRow<T> (authorId: number, columns: readonly string[], trx: Transaction): Promise<T> {
  const locked = async (): Promise<T | undefined> => await trx(TABLE).where({ author_id: authorId }).forUpdate().first(...columns) as T | undefined
  // A member who ever acted has a row: one round trip. The first action writes it.
  const row = await locked()
  if (row !== undefined) return row
  await trx(TABLE).insert({ author_id: authorId }).onConflict('author_id').ignore()
  return (await locked())!
}

/**
 * Of `recent` (when each of the member's last actions was, ms), those of the last minute,
 * when one more is allowed; TOO_MANY_REQUESTS, with the seconds until it is, when
 * `perMinute` of them are there already.
 */
export function withinMinute (recent: readonly number[], perMinute: number, now: number): number[] {
  const kept = recent.filter(at => at > now - MINUTE_MS)
  // Waits until enough of them are more than a minute old.
  if (kept.length >= perMinute) throw new TooManyRequests((kept[kept.length - perMinute]! + MINUTE_MS - now) / 1000)
  return kept
}

/**
 * Counts one more of a member's actions whose times their flood-control row keeps in
 * `column` (a JSON list), at most `perMinute` a minute: TOO_MANY_REQUESTS, with the seconds
 * to wait, past it (nothing counted). The row is locked until `trx` ends, so every process
 * counts the same.
 */
export async function admitCounted (authorId: number, column: 'ignores_recent', perMinute: number, trx: Transaction): Promise<void> {
  const row = await lockFloodRow<Record<typeof column, Array<number | string>>>(authorId, [column], trx)
  const now = Date.now()
  const kept = withinMinute(row[column].map(Number), perMinute, now)
  await trx(TABLE).where({ author_id: authorId }).update({ [column]: JSON.stringify([...kept, now]) })
}

export async function admitPost (authorId: number, message: string, rules: FloodRules, trx: Transaction): Promise<void> {
  const digest = createHash('sha256').update(message).digest('base64url')
  const row = await lockFloodRow<Row>(authorId, ['recent', 'last_posted_at', 'last_digest', 'room_posted_at'], trx)
  const now = Date.now()
  const last = row.last_posted_at === null ? null : Number(row.last_posted_at)
  if (last !== null && row.last_digest === digest && now - last < DUPLICATE_WITHIN_MS) throw new DuplicateShout()
  const gapMs = rules.minSecondsBetweenShouts * 1000
  if (last !== null && now - last < gapMs) throw new TooManyRequests((last + gapMs - now) / 1000)
  const room = String(rules.room.id)
  const lastHere = row.room_posted_at[room]
  const slowMs = rules.room.slowModeSeconds * 1000
  if (lastHere !== undefined && now - lastHere < slowMs) throw new TooManyRequests((lastHere + slowMs - now) / 1000)
  const recent = withinMinute(row.recent, rules.maxShoutsPerMinute, now)
  await trx(TABLE).where({ author_id: authorId }).update({
    recent: JSON.stringify([...recent, now]),
    last_posted_at: now,
    last_digest: digest,
    room_posted_at: trx.raw('room_posted_at || jsonb_build_object(?::text, ?::bigint)', [room, now])
  })
}
