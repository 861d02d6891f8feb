import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import os from 'node:os'
import { ServiceUnavailable } from '../../sdk/index.js'

/**
 * scrypt at OWASP's recommended minimum (N=2^17, r=8, p=1: 128 MiB of memory per hash).
 * It runs on libuv's thread pool, so the event loop keeps serving while a hash runs.
 * The parameters are stored in each hash, so they can be raised later without
 * invalidating old passwords.
 */
export interface ScryptParams {
  readonly logN: number
  readonly r: number
  readonly p: number
}

export const OWASP_SCRYPT: ScryptParams = { logN: 17, r: 8, p: 1 }

const KEY_LENGTH = 32

function derive (password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => error ? reject(error) : resolve(key))
  })
}

/** scrypt itself, unbounded: wrapped by `BoundedPasswords` wherever the host hashes. */
export class PasswordHasher implements Passwords {
  constructor (private readonly params: ScryptParams = OWASP_SCRYPT) {}

  /** `scrypt$<logN>$<r>$<p>$<salt>$<key>`, base64url parts. */
  async hash (password: string): Promise<string> {
    const salt = randomBytes(16)
    const key = await derive(password, salt, this.params)
    const { logN, r, p } = this.params
    return ['scrypt', logN, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
  }

  async verify (password: string, stored: string): Promise<boolean> {
    const [scheme, logN, r, p, salt, key] = stored.split('$')
    if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false
    const expected = Buffer.from(key, 'base64url')
    const actual = await derive(password, Buffer.from(salt, 'base64url'), { logN: Number(logN), r: Number(r), p: Number(p) })
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  }

  /** Spends the same time as a real check, so a wrong username is not faster than a wrong password. */
  async verifyNobody (password: string): Promise<false> {
    await derive(password, Buffer.alloc(16), this.params)
    return false
  }
}

/** What the host hashes passwords with: `BoundedPasswords` in the identity plugin. */
export interface Passwords {
  hash (password: string): Promise<string>
  verify (password: string, stored: string): Promise<boolean>
  verifyNobody (password: string): Promise<false>
}

export interface HashingLimits {
  /** Hashes computed at once by this process. */
  readonly concurrency: number
  /** Hashes waiting for a turn; one more is refused with 503 SERVICE_UNAVAILABLE. */
  readonly queue: number
}

/**
 * No more hashes at once than cores, and at least one of libuv's threads (4 unless
 * UV_THREADPOOL_SIZE says otherwise) left for what else runs there: static files, DNS,
 * zlib. Each hash holds 128 MiB, so this also caps hashing's memory. 16 waiting is about
 * two seconds of work on two cores; beyond that a client is better told to come back.
 */
export function defaultHashingLimits (env: NodeJS.ProcessEnv = process.env): HashingLimits {
  const pool = Number(env.UV_THREADPOOL_SIZE) || 4
  return { concurrency: Math.max(1, Math.min(os.availableParallelism(), pool - 1)), queue: 16 }
}

/** Seconds a client refused for a full hashing queue is asked to wait: the queue drains in about that. */
export const HASHING_BUSY_RETRY_SECONDS = 1

export type HashKind = 'hash' | 'verify' | 'verify-nobody'

/**
 * The process's one way to hash passwords — sign-in, setup, creating users, changing a
 * password: at most `concurrency` scrypt runs at once, at most `queue` waiting. A burst
 * therefore cannot take more than `concurrency` × 128 MiB, nor every thread of the pool
 * the static files are read on; what does not fit is refused at once with
 * 503 SERVICE_UNAVAILABLE and `Retry-After`, before any memory is taken.
 */
export class BoundedPasswords implements Passwords {
  private running = 0
  private readonly waiting: Array<() => void> = []
  private started = 0

  constructor (
    private readonly hasher: PasswordHasher,
    readonly limits: HashingLimits,
    /** Told of each hash as it starts (the identity plugin logs it at debug level). */
    private readonly onHash: (kind: HashKind) => void = () => {}
  ) {}

  /** Hashes started since the process began (tests and the measurement read it). */
  get hashesRun (): number {
    return this.started
  }

  /** Hashes running now, and waiting for a turn. */
  get load (): { running: number, queued: number } {
    return { running: this.running, queued: this.waiting.length }
  }

  hash (password: string): Promise<string> {
    return this.bounded('hash', () => this.hasher.hash(password))
  }

  verify (password: string, stored: string): Promise<boolean> {
    return this.bounded('verify', () => this.hasher.verify(password, stored))
  }

  verifyNobody (password: string): Promise<false> {
    return this.bounded('verify-nobody', () => this.hasher.verifyNobody(password))
  }

  private async bounded<T> (kind: HashKind, work: () => Promise<T>): Promise<T> {
    await this.turn()
    try {
      this.started++
      this.onHash(kind)
      return await work()
    } finally {
      this.release()
    }
  }

  /** Takes a turn now, queues for one, or refuses: decided synchronously, so a burst cannot overfill the queue. */
  private turn (): Promise<void> | undefined {
    if (this.running < this.limits.concurrency) {
      this.running++
      return undefined
    }
    if (this.waiting.length >= this.limits.queue) {
      const busy = new ServiceUnavailable()
      busy.headers['retry-after'] = String(HASHING_BUSY_RETRY_SECONDS)
      throw busy
    }
    return new Promise(resolve => this.waiting.push(resolve))
  }

  /** Hands the turn straight to the next in line, so `running` never dips while some wait. */
  private release (): void {
    const next = this.waiting.shift()
    if (next === undefined) this.running--
    else next()
  }
}
