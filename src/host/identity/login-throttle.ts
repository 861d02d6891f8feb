import { createHash } from 'node:crypto'
import { type Database, TooManyRequests } from '../../sdk/index.js'
import { SIGN_IN_ATTEMPTS_TABLE } from '../database/tables.js'
import type { AddressKeys } from './address-keys.js'

export interface ThrottlePolicy {
  /** Attempts a login typed from one address may make before each next one must wait. */
  readonly freeAttempts: number
  /** Attempts one address may make, whatever the login, before each next one must wait (looser: people share addresses). */
  readonly freeAttemptsPerAddress: number
  /** The first wait; it doubles with each further attempt counted. */
  readonly firstDelayMs: number
  readonly maxDelayMs: number
  /** A key with no attempt for this long starts again from nothing, and its row is purged. */
  readonly forgetAfterMs: number
  /** A process purges forgotten rows at most this often. */
  readonly purgeEveryMs: number
}

export const DEFAULT_THROTTLE: ThrottlePolicy = {
  freeAttempts: 5,
  freeAttemptsPerAddress: 20,
  firstDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
  purgeEveryMs: 60_000
}

export interface ThrottleOptions extends Partial<ThrottlePolicy> {
  /** Milliseconds since the epoch; tests move it instead of waiting. */
  readonly now?: () => number
}

/** An attempt let through to the password check. */
export interface Attempt {
  /** The password was right: the count of this login from this address is cleared; the address's no longer holds this attempt. */
  succeeded (): Promise<void>
  /** The password was never judged (hashing busy, database lost): the attempt no longer counts. */
  withdraw (): Promise<void>
}

/** Doubling the first delay more often than this overflows nothing and passes any sane maximum. */
const MAX_DOUBLINGS = 40

/**
 * Counts sign-in attempts in the database (shared by every host process) *before* the
 * password is hashed, under two keys: the login typed from this client, and the client
 * (an IPv4 address, or an IPv6 /64, as the HMAC of the day: see `AddressKeys`). Each key's first attempts go at once; past them each next attempt must wait,
 * the wait doubling up to a maximum. An attempt that comes too early is refused with
 * 429 and `Retry-After` — even with the right password, so a guesser learns nothing —
 * and is not counted, so it costs no hash and lengthens no wait.
 *
 * Counting and deciding are one statement per key (an upsert whose update happens only
 * when the attempt is allowed), so attempts arriving together are decided one after the
 * other on the row's lock: a burst gets exactly the free attempts, never more.
 *
 * There is no key for a username alone: a stranger's failures lock out only the
 * stranger's address, never the account's owner elsewhere.
 */
export class LoginThrottle {
  private readonly policy: ThrottlePolicy
  private readonly now: () => number
  private lastPurgeAt = Number.NEGATIVE_INFINITY

  /** `addresses`: what stands for a client's address in the table (one shared by the process's counters). */
  constructor (private readonly db: Database, private readonly addresses: AddressKeys, options: ThrottleOptions = {}) {
    const { now, ...policy } = options
    this.policy = { ...DEFAULT_THROTTLE, ...policy }
    this.now = now ?? Date.now
  }

  /** Counts an attempt to sign in as `login` from `address`, or refuses it (TooManyRequests). */
  async attempt (address: string, login: string): Promise<Attempt> {
    await this.purgeIfDue()
    const client = this.addresses.of(address)
    const pair = keyOf('login', client, login.toLowerCase())
    const from = keyOf('address', client)
    await this.take(pair, this.policy.freeAttempts)
    try {
      await this.take(from, this.policy.freeAttemptsPerAddress)
    } catch (error) {
      await this.giveBack([pair])
      throw error
    }
    return {
      succeeded: async () => {
        await this.db(SIGN_IN_ATTEMPTS_TABLE).where({ key: pair }).delete()
        await this.giveBack([from])
      },
      withdraw: () => this.giveBack([pair, from])
    }
  }

  /**
   * Refuses (TooManyRequests) a credential check from `address` while the address must
   * wait: a token guesser past its free failures learns nothing, even from a right one.
   */
  async refuseIfWaiting (address: string): Promise<void> {
    const row: { next_allowed_at: number | string } | undefined = await this.db(SIGN_IN_ATTEMPTS_TABLE)
      .where({ key: keyOf('address', this.addresses.of(address)) }).first('next_allowed_at')
    const waitMs = row === undefined ? 0 : Number(row.next_allowed_at) - this.now()
    if (waitMs > 0) throw new TooManyRequests(waitMs / 1000)
  }

  /**
   * Counts a credential that failed (a wrong, expired or revoked API token) against
   * `address`, as a failed sign-in counts: past the address's free attempts, each next
   * one must wait (and this one is refused with TooManyRequests).
   */
  async failed (address: string): Promise<void> {
    await this.purgeIfDue()
    await this.take(keyOf('address', this.addresses.of(address)), this.policy.freeAttemptsPerAddress)
  }

  /** Deletes the rows of keys forgotten (no attempt for `forgetAfterMs`) and not waiting; returns how many. */
  async purge (): Promise<number> {
    const now = this.now()
    return this.db(SIGN_IN_ATTEMPTS_TABLE)
      .where('last_attempt_at', '<', now - this.policy.forgetAfterMs)
      .andWhere('next_allowed_at', '<=', now)
      .delete()
  }

  private async purgeIfDue (): Promise<void> {
    const now = this.now()
    if (now - this.lastPurgeAt < this.policy.purgeEveryMs) return
    this.lastPurgeAt = now
    await this.purge()
  }

  /** Counts one attempt on `key` if it may be made now; throws TooManyRequests otherwise. */
  private async take (key: string, free: number): Promise<void> {
    const now = this.now()
    const { firstDelayMs, maxDelayMs } = this.policy
    // The count after this attempt: 1 when the key was forgotten, else one more.
    const count = 'case when a.last_attempt_at < :forgetBefore then 1 else a.attempts + 1 end'
    const result = await this.db.raw<{ rows: unknown[] }>(`
      insert into ${SIGN_IN_ATTEMPTS_TABLE} as a (key, attempts, next_allowed_at, last_attempt_at)
      values (:key, 1, :firstNextAllowedAt, :now)
      on conflict (key) do update set
        attempts = ${count},
        next_allowed_at = ${nextAllowedSql(count)},
        last_attempt_at = :now
      where a.next_allowed_at <= :now
      returning attempts`, {
      key, now, forgetBefore: now - this.policy.forgetAfterMs, free, firstDelayMs, maxDelayMs, maxDoublings: MAX_DOUBLINGS,
      firstNextAllowedAt: nextAllowedAt(now, 1, free, this.policy)
    })
    if (result.rows.length > 0) return
    const row: { next_allowed_at: number | string } | undefined = await this.db(SIGN_IN_ATTEMPTS_TABLE).where({ key }).first('next_allowed_at')
    throw new TooManyRequests(row === undefined ? 1 : (Number(row.next_allowed_at) - now) / 1000)
  }

  /** Uncounts one attempt on each key (its wait, if it started one, runs out as it would). */
  private async giveBack (keys: string[]): Promise<void> {
    await this.db(SIGN_IN_ATTEMPTS_TABLE).whereIn('key', keys).update({ attempts: this.db.raw('greatest(attempts - 1, 0)') })
  }
}

/**
 * When the next attempt may come once `count` attempts are counted: at once (0) within
 * the free ones, then `now` plus a wait doubling from the first. Not `now` for a free
 * attempt: on a pool of connections, an attempt whose clock was read a moment earlier may
 * be decided after this one, and must not find itself "too early".
 */
export function nextAllowedAt (now: number, count: number, free: number, policy: Pick<ThrottlePolicy, 'firstDelayMs' | 'maxDelayMs'>): number {
  if (count < free) return 0
  return now + Math.min(policy.firstDelayMs * 2 ** Math.min(count - free, MAX_DOUBLINGS), policy.maxDelayMs)
}

/** `nextAllowedAt` in SQL, over the count expression `count`. */
function nextAllowedSql (count: string): string {
  return `(case when ${count} < :free then 0 else :now + cast(least(
    cast(:firstDelayMs as float8) * power(2, least(${count} - :free, :maxDoublings)), cast(:maxDelayMs as float8)) as bigint) end)`
}

/** The row's key: a hash, so the table never holds a typed login (sometimes a password typed in the wrong field). */
function keyOf (...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('base64url')
}
