import { type Database, TooManyRequests } from '../../sdk/index.js'
import { ADDRESS_QUOTAS_TABLE } from '../database/tables.js'
import type { AddressKeys } from './address-keys.js'

export interface QuotaPolicy {
  /** Attempts allowed per client address within a window. */
  readonly limit: number
  readonly windowMs: number
}

/**
 * Counts attempts per client (an IPv4 address, or an IPv6 /64, kept only as the HMAC of
 * the day: see `AddressKeys`) in the database, so every host process shares the count: each `take` counts its amount, and past the
 * limit it refuses until the window (which starts at the first attempt) ends. One
 * statement counts and reads, so attempts sent at once to several processes cannot all
 * slip under the limit. Windows that have ended are purged, at most once a window.
 */
export class AddressQuota {
  private purgedAt = 0

  constructor (private readonly db: Database, private readonly name: string, private readonly policy: QuotaPolicy, private readonly addresses: AddressKeys) {}

  /** Counts `amount` attempts (one by default; a lookup of fifty names is fifty). */
  async take (address: string, amount = 1): Promise<void> {
    const now = Date.now()
    const expired = now - this.policy.windowMs
    if (now - this.purgedAt >= this.policy.windowMs) {
      this.purgedAt = now
      await this.db(ADDRESS_QUOTAS_TABLE).where('key', 'like', `${this.name}:%`).andWhere('window_started_at', '<=', expired).delete()
    }
    const result = await this.db.raw<{ rows: Array<{ count: number, window_started_at: number }> }>(`
      insert into ${ADDRESS_QUOTAS_TABLE} as q (key, count, window_started_at) values (?, ?, ?)
      on conflict (key) do update set
        count = case when q.window_started_at <= ? then excluded.count else q.count + excluded.count end,
        window_started_at = case when q.window_started_at <= ? then excluded.window_started_at else q.window_started_at end
      returning count, window_started_at`, [`${this.name}:${this.addresses.of(address)}`, amount, now, expired, expired])
    const row = result.rows[0]
    if (row !== undefined && row.count > this.policy.limit) {
      // An attempt sent at the same moment may have opened the window a few milliseconds
      // after this one read the clock; no one is told to wait longer than one window.
      const waitMs = Math.min(this.policy.windowMs, Number(row.window_started_at) + this.policy.windowMs - now)
      throw new TooManyRequests(waitMs / 1000)
    }
  }
}
