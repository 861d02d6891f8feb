import type { Database, Transaction } from '../../sdk/index.js'
import type { HeldWhy } from '../review.js'
import { GUEST_MUTES_TABLE, GUEST_POST_LOCK, GUEST_PROOFS_TABLE, SHOUTS_TABLE } from '../tables.js'

/** A held guest's shout as stored: off the board until a moderator approves it. */
export interface HeldGuestShout {
  readonly id: number
  readonly date: number
}

/** A guest's shout, found by a moderator: its name, and what stands for its address (never shown). */
export interface GuestShout {
  readonly id: number
  readonly username: string
  readonly addressKey: string | null
  readonly onBoard: boolean
}

/** How recently one address (or one room's guests) posted: the posts of the last minute, and the newest. */
export interface RecentPosts {
  readonly lastMinute: number
  readonly oldestInMinute: number | null
  readonly last: number | null
}

/** A guest mute as answered: the shout it was made by, when it ends, why. Never the address. */
export interface GuestMute {
  readonly shoutId: number
  readonly until: number
  readonly reason: string | null
}

/**
 * Guests' rows: their shouts (in the shouts table, marked `guest`, with the HMAC of the
 * day of their address), the proofs they used (which the flood limits count: each post
 * uses one) and the mutes of their addresses.
 */
export function guestsRepository (db: Database) {
  return {
    /**
     * Locks, until `trx` ends, the posting of guests from `addressKey` and then of the
     * guests of room `roomId` (always in that order): their counts are read and a post
     * added without another in between, on every process.
     */
    async lockPosting (addressKey: string, roomId: number, trx: Transaction): Promise<void> {
      await trx.raw("select pg_advisory_xact_lock(?, hashtext(current_schema() || ':address:' || ?))", [GUEST_POST_LOCK, addressKey])
      await trx.raw("select pg_advisory_xact_lock(?, hashtext(current_schema() || ':room:' || ?))", [GUEST_POST_LOCK, String(roomId)])
    },

    /** The posts (proofs used) from `addressKey` since `since`, in any room or in `roomId`. */
    async postsFrom (addressKey: string, since: number, trx: Transaction, roomId?: number): Promise<RecentPosts> {
      const query = trx(GUEST_PROOFS_TABLE).where({ address_key: addressKey }).where('used_at', '>=', since)
      if (roomId !== undefined) query.where({ room_id: roomId })
      return recent(await query.select('used_at'))
    },

    /** The guests' posts in `roomId` since `since`, from every address. */
    async postsIn (roomId: number, since: number, trx: Transaction): Promise<RecentPosts> {
      return recent(await trx(GUEST_PROOFS_TABLE).where({ room_id: roomId }).where('used_at', '>=', since).select('used_at'))
    },

    /** Stores a guest's shout off the board, waiting for review (`why`: guests' shouts are held, or a watched word holds it). */
    async hold (shout: { roomId: number, name: string, addressKey: string, message: string, why: HeldWhy }, trx: Transaction): Promise<HeldGuestShout> {
      const now = Date.now()
      const [row] = await trx(SHOUTS_TABLE).insert({
        room_id: shout.roomId, author_id: null, username: shout.name, message: shout.message, date: now,
        reply_to_id: null, state: 'held', why: shout.why, since: now, guest: true, guest_address: shout.addressKey
      }).returning<Array<{ id: number | string, date: number | string }>>(['id', 'date'])
      return { id: Number(row!.id), date: Number(row!.date) }
    },

    /** The guest's shout `id`, on the board or off it; undefined when there is none, or it is a member's. */
    async find (id: number, trx: Database = db): Promise<GuestShout | undefined> {
      const row = await trx(SHOUTS_TABLE).where({ id, guest: true })
        .first<{ id: number | string, username: string, guest_address: string | null, state: string | null } | undefined>('id', 'username', 'guest_address', 'state')
      return row === undefined ? undefined : { id: Number(row.id), username: row.username, addressKey: row.guest_address, onBoard: row.state === null }
    },

    /** The guests' shouts from any of `addressKeys`, oldest first (at most `limit`): what erasure by address takes. */
    async shoutsFrom (addressKeys: readonly string[], limit: number, trx: Transaction): Promise<GuestShout[]> {
      const rows = await trx(SHOUTS_TABLE).where({ guest: true }).whereIn('guest_address', [...addressKeys]).orderBy('id').limit(limit)
        .select<Array<{ id: number | string, username: string, guest_address: string | null, state: string | null }>>('id', 'username', 'guest_address', 'state')
      return rows.map(row => ({ id: Number(row.id), username: row.username, addressKey: row.guest_address, onBoard: row.state === null }))
    },

    /** Forgets the proofs used from any of `addressKeys` (the erasure of that address's traces). */
    async forgetProofsOf (addressKeys: readonly string[], trx: Transaction): Promise<void> {
      await trx(GUEST_PROOFS_TABLE).whereIn('address_key', [...addressKeys]).delete()
    },

    async mute (mute: { addressKey: string, until: number, reason: string | null, shoutId: number, byId: number }, trx: Transaction): Promise<GuestMute> {
      await trx(GUEST_MUTES_TABLE).insert({ address_key: mute.addressKey, until: mute.until, reason: mute.reason, shout_id: mute.shoutId, by_id: mute.byId, created_at: Date.now() })
      return { shoutId: mute.shoutId, until: mute.until, reason: mute.reason }
    },

    /** When the longest mute that holds any of `addressKeys` now ends; undefined when none does. */
    async mutedUntil (addressKeys: readonly string[], now: number, trx: Database = db): Promise<number | undefined> {
      const row = await trx(GUEST_MUTES_TABLE).whereIn('address_key', [...addressKeys]).where('until', '>', now).max<{ until: number | string | null }>('until as until').first()
      return row?.until === null || row?.until === undefined ? undefined : Number(row.until)
    },

    /**
     * What is kept of guests' addresses past their use: mutes that ended go, and shouts
     * older than `addressesBefore` lose what stood for their address (no address's key of
     * today or yesterday can match it any more). Answers how many shouts were cleared.
     */
    async prune (now: number, addressesBefore: number): Promise<number> {
      await db(GUEST_MUTES_TABLE).where('until', '<=', now).delete()
      return await db(SHOUTS_TABLE).whereNotNull('guest_address').where('date', '<', addressesBefore).update({ guest_address: null })
    }
  }
}

function recent (rows: Array<{ used_at: number | string }>): RecentPosts {
  const times = rows.map(row => Number(row.used_at)).sort((a, b) => a - b)
  return { lastMinute: times.length, oldestInMinute: times[0] ?? null, last: times[times.length - 1] ?? null }
}
