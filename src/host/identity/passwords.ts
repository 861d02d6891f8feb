import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import os from 'node:os'
import { ServiceUnavailable } from '../../sdk/index.js'
import { clientKey } from '../../sdk/client-address.js'

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

/**
 * What the host hashes passwords with: `BoundedPasswords` in the identity plugin. `ip` is
 * the address of the client the hash is for: clients take turns (see BoundedPasswords).
 */
export interface Passwords {
  hash (password: string, ip?: string): Promise<string>
  verify (password: string, stored: string, ip?: string): Promise<boolean>
  verifyNobody (password: string, ip?: string): Promise<false>
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
export function defaultHashingLimits (threadPoolSize: number): HashingLimits {
  return { concurrency: Math.max(1, Math.min(os.availableParallelism(), threadPoolSize - 1)), queue: 16 }
}

/** How fast a client's count of recent hashes fades: halved every minute. */
const USE_HALF_LIFE_MS = 60_000
/** Clients whose recent hashes are remembered before the faded ones are forgotten. */
const MAX_CLIENTS_REMEMBERED = 10_000

/** Seconds a client refused for a full hashing queue is asked to wait: the queue drains in about that. */
export const HASHING_BUSY_RETRY_SECONDS = 1

export type HashKind = 'hash' | 'verify' | 'verify-nobody'

interface Waiting {
  readonly go: () => void
  readonly refuse: (error: Error) => void
}

/**
 * The process's one way to hash passwords — sign-in, setup, creating users, changing a
 * password: at most `concurrency` scrypt runs at once, at most `queue` waiting. A burst
 * therefore cannot take more than `concurrency` × 128 MiB, nor every thread of the pool
 * the static files are read on; what does not fit is refused at once with
 * 503 SERVICE_UNAVAILABLE and `Retry-After`, before any memory is taken.
 *
 * The queue is shared fairly between clients (by address, an IPv6 client by its /64),
 * by what each has had lately: its hashes of the last minutes (halved every minute) and
 * its places in the queue. A turn goes to the waiting client that has had least; when
 * the queue is full, a client that has had less than the one that has had most takes that
 * one's newest place (which is refused, as it would have been had it come last). So
 * clients that keep the queue full, retrying after each 503, cannot keep out a client
 * that seldom signs in: it gets a place at once, and the next turn.
 */
export class BoundedPasswords implements Passwords {
  private running = 0
  /** Who waits, by client; among those that have had as much, a client served goes to the back. */
  private readonly waiting = new Map<string, Waiting[]>()
  private queued = 0
  /** Each client's hashes lately, halved every USE_HALF_LIFE_MS (`at`: when `hashes` was last brought up to date). */
  private readonly used = new Map<string, { hashes: number, at: number }>()
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
    return { running: this.running, queued: this.queued }
  }

  /** Places the client at `ip` holds in the queue now. */
  placesOf (ip: string): number {
    return this.waiting.get(clientKey(ip))?.length ?? 0
  }

  hash (password: string, ip?: string): Promise<string> {
    return this.bounded('hash', ip, () => this.hasher.hash(password))
  }

  verify (password: string, stored: string, ip?: string): Promise<boolean> {
    return this.bounded('verify', ip, () => this.hasher.verify(password, stored))
  }

  verifyNobody (password: string, ip?: string): Promise<false> {
    return this.bounded('verify-nobody', ip, () => this.hasher.verifyNobody(password))
  }

  private async bounded<T> (kind: HashKind, ip: string | undefined, work: () => Promise<T>): Promise<T> {
    const client = ip === undefined ? '' : clientKey(ip)
    await this.turn(client)
    this.use(client)
    try {
      this.started++
      this.onHash(kind)
      return await work()
    } finally {
      this.release()
    }
  }

  /** Takes a turn now, queues for one, or refuses: decided synchronously, so a burst cannot overfill the queue. */
  private turn (client: string): Promise<void> | undefined {
    if (this.running < this.limits.concurrency) {
      this.running++
      return undefined
    }
    const mine = this.waiting.get(client)
    if (this.queued >= this.limits.queue) {
      const most = this.hadMost()
      // Strictly more than this client would have with the place: no two swap places for ever.
      if (most === undefined || this.had(most) <= this.had(client) + 1) throw busyError()
      const places = this.waiting.get(most)!
      places.pop()!.refuse(busyError())
      if (places.length === 0) this.waiting.delete(most)
      this.queued--
    }
    return new Promise((resolve, reject) => {
      this.queued++
      const place = { go: resolve, refuse: reject }
      if (mine === undefined) this.waiting.set(client, [place])
      else mine.push(place)
    })
  }

  /** What `client` has had lately: its recent hashes, and its places in the queue. */
  private had (client: string, now = Date.now()): number {
    return this.recentHashes(client, now) + (this.waiting.get(client)?.length ?? 0)
  }

  private recentHashes (client: string, now: number): number {
    const used = this.used.get(client)
    return used === undefined ? 0 : used.hashes * 0.5 ** ((now - used.at) / USE_HALF_LIFE_MS)
  }

  /** Counts a hash started for `client`, and forgets the clients whose count has faded. */
  private use (client: string, now = Date.now()): void {
    this.used.set(client, { hashes: this.recentHashes(client, now) + 1, at: now })
    if (this.used.size > MAX_CLIENTS_REMEMBERED) {
      for (const known of this.used.keys()) if (this.recentHashes(known, now) < 0.01) this.used.delete(known)
    }
  }

  /** The waiting client that has had most (the first such, in the queue's order). */
  private hadMost (): string | undefined {
    return this.firstWaiting((a, b) => a > b)
  }

  /** The waiting client that has had least (the first such, in the queue's order). */
  private hadLeast (): string | undefined {
    return this.firstWaiting((a, b) => a < b)
  }

  /** The first waiting client whose `had` beats every other's by `beats`. */
  private firstWaiting (beats: (a: number, b: number) => boolean): string | undefined {
    const now = Date.now()
    let chosen: { client: string, had: number } | undefined
    for (const client of this.waiting.keys()) {
      const had = this.had(client, now)
      if (chosen === undefined || beats(had, chosen.had)) chosen = { client, had }
    }
    return chosen?.client
  }

  /**
   * Hands the turn straight to the waiting client that has had least (so `running` never
   * dips while some wait); that client goes to the back of the line.
   */
  private release (): void {
    const client = this.hadLeast()
    if (client === undefined) {
      this.running--
      return
    }
    const places = this.waiting.get(client)!
    const next = places.shift()!
    this.waiting.delete(client)
    if (places.length > 0) this.waiting.set(client, places)
    this.queued--
    next.go()
  }
}

function busyError (): ServiceUnavailable {
  const busy = new ServiceUnavailable()
  busy.headers['retry-after'] = String(HASHING_BUSY_RETRY_SECONDS)
  return busy
}
