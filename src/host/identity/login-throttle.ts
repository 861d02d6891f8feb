import type { Knex } from 'knex'
import { TooManyRequests } from '../../sdk/index.js'

export interface ThrottlePolicy {
  /** Failures allowed per username within the window. */
  readonly perUsername: number
  /** Failures allowed per client address within the window (one address may hold many accounts). */
  readonly perAddress: number
  readonly windowMs: number
  readonly lockMs: number
}

const DEFAULT_THROTTLE: ThrottlePolicy = { perUsername: 5, perAddress: 20, windowMs: 15 * 60_000, lockMs: 15 * 60_000 }

/**
 * Counts failed sign-ins in the database (shared by every host process). Past the limit
 * the key is locked: even the right password is refused until the lock ends, so a
 * guesser learns nothing from the answers.
 */
export class LoginThrottle {
  constructor (private readonly db: Knex, private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE) {}

  async assertAllowed (address: string, login: string): Promise<void> {
    const now = Date.now()
    const rows: Array<{ locked_until: number }> = await this.db('login_failures')
      .whereIn('key', keys(address, login))
      .andWhere('locked_until', '>', now)
      .select('locked_until')
    if (rows.length > 0) {
      const until = Math.max(...rows.map(r => r.locked_until))
      throw new TooManyRequests((until - now) / 1000)
    }
  }

  async recordFailure (address: string, login: string): Promise<void> {
    const [addressKey, userKey] = keys(address, login)
    await this.bump(addressKey, this.policy.perAddress)
    await this.bump(userKey, this.policy.perUsername)
  }

  async recordSuccess (login: string): Promise<void> {
    await this.db('login_failures').where({ key: userKeyOf(login) }).delete()
  }

  private async bump (key: string, limit: number): Promise<void> {
    const now = Date.now()
    const windowStart = now - this.policy.windowMs
    const result = await this.db.raw<{ rows: Array<{ failures: number }> }>(`
      insert into login_failures (key, failures, window_started_at, locked_until) values (?, 1, ?, 0)
      on conflict (key) do update set
        failures = case when login_failures.window_started_at < ? then 1 else login_failures.failures + 1 end,
        window_started_at = case when login_failures.window_started_at < ? then excluded.window_started_at else login_failures.window_started_at end
      returning failures`, [key, now, windowStart, windowStart])
    const failures = result.rows[0]?.failures ?? 0
    if (failures >= limit) {
      await this.db('login_failures').where({ key }).update({ locked_until: now + this.policy.lockMs, failures: 0, window_started_at: now })
    }
  }
}

const userKeyOf = (login: string): string => `user:${login.toLowerCase()}`
const keys = (address: string, login: string): [string, string] => [`ip:${address}`, userKeyOf(login)]
