import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import os from 'node:os'
import { hash as argon2Hash, verify as argon2Verify, type Algorithm } from '@node-rs/argon2'
import { ServiceUnavailable } from '../../sdk/index.js'
import { clientKey } from '../../sdk/client-address.js'

/**
 * New passwords are hashed with argon2id at OWASP's first recommendation (19 MiB of memory,
 * 2 passes, 1 lane): about 12 ms on one core here, where scrypt at OWASP's minimum
 * (N=2^17, r=8, p=1, 128 MiB) took 400–600 ms — the cost a sign-in paid, and a busy
 * board's sign-ins queued behind. OWASP holds the two equivalent. Both run on libuv's
 * thread pool (`@node-rs/argon2` is a native addon), so the event loop keeps serving.
 *
 * Hashes made before keep working: a `scrypt$…` hash is checked with the parameters it
 * records, and the sign-in that proves the password writes an argon2id hash in its place
 * (`needsRehash`). An argon2id hash records its parameters too (the PHC string), so they
 * can be raised later the same way.
 */
export interface Argon2Params {
  /** KiB of memory. */
  readonly memoryCost: number
  /** Passes over the memory. */
  readonly timeCost: number
  readonly parallelism: number
}

export const OWASP_ARGON2ID: Argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 }

/** scrypt's parameters, as `scrypt$<logN>$<r>$<p>$…` hashes of earlier versions record them. */
export interface ScryptParams {
  readonly logN: number
  readonly r: number
  readonly p: number
}

export const OWASP_SCRYPT: ScryptParams = { logN: 17, r: 8, p: 1 }

const KEY_LENGTH = 32
/** `Algorithm.Argon2id` (a const enum, which this build's isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm

function deriveScrypt (password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => error ? reject(error) : resolve(key))
  })
}

/** The parameters an argon2id PHC string records (`$argon2id$v=19$m=…,t=…,p=…$…`), or undefined. */
function argon2ParamsOf (stored: string): Argon2Params | undefined {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored)
  return match === null ? undefined : { memoryCost: Number(match[1]), timeCost: Number(match[2]), parallelism: Number(match[3]) }
}

function hashWith (password: string, params: Argon2Params): Promise<string> {
  return argon2Hash(password.normalize('NFC'), { algorithm: ARGON2ID, ...params, outputLen: KEY_LENGTH, salt: randomBytes(16) })
}

/** Whether `password` is the one `stored` was made from: an argon2id hash, or an scrypt one of earlier versions. */
async function check (password: string, stored: string): Promise<boolean> {
  if (argon2ParamsOf(stored) !== undefined) {
    try {
      return await argon2Verify(stored, password.normalize('NFC'))
    } catch {
      return false
    }
  }
  const [scheme, logN, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false
  const expected = Buffer.from(key, 'base64url')
  try {
    const actual = await deriveScrypt(password, Buffer.from(salt, 'base64url'), { logN: Number(logN), r: Number(r), p: Number(p) })
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  } catch {
    // Parameters scrypt refuses: a damaged hash matches nothing.
    return false
  }
}

/** The hashing itself, unbounded: wrapped by `BoundedPasswords` wherever the host hashes. */
export class PasswordHasher implements Passwords {
  /** What `verifyNobody` checks against: a real hash, with these parameters, of nothing anyone types; made once. */
  private nobody: Promise<string> | undefined

  constructor (private readonly params: Argon2Params = OWASP_ARGON2ID) {}

  /** An argon2id PHC string: `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<key>`. */
  async hash (password: string): Promise<string> {
    return await hashWith(password, this.params)
  }

  async verify (password: string, stored: string): Promise<boolean> {
    return await check(password, stored)
  }

  /** Spends the same time as a real check, so a wrong username is not faster than a wrong password. */
  async verifyNobody (password: string): Promise<false> {
    this.nobody ??= hashWith(randomBytes(24).toString('base64url'), this.params)
    await check(password, await this.nobody)
    return false
  }

  /** True when `stored` is not an argon2id hash with this hasher's parameters (or stronger): the next sign-in writes one. */
  needsRehash (stored: string): boolean {
    const params = argon2ParamsOf(stored)
    return params === undefined || params.memoryCost < this.params.memoryCost || params.timeCost < this.params.timeCost
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
  /** True when a password proved against `stored` should be hashed again (older scheme or parameters). */
  needsRehash (stored: string): boolean
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
 * zlib. Each hash holds 19 MiB (an old scrypt hash checked, 128 MiB), so this also caps hashing's memory. 16 waiting is a few tenths of a second
 * of work on two cores; beyond that a client is better told to come back.
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
 * password: at most `concurrency` hashes at once, at most `queue` waiting. A burst
 * therefore cannot take more than `concurrency` × 128 MiB (an old scrypt hash's cost), nor every thread of the pool
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

  needsRehash (stored: string): boolean {
    return this.hasher.needsRehash(stored)
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
