import { ServiceUnavailable, TooManyRequests, clientKey, type AddonContext, type Database } from '../sdk/index.js'
import { perContext } from './per-context.js'

/** Searches one client may run at once: each reads up to a bounded range of the board. */
export const SEARCHES_PER_CLIENT = 2
/**
 * Searches this process runs at once, whoever asks: each holds a database connection
 * while it reads, so a crowd of searchers takes at most this many of the pool's (one in
 * eight of them, at least one), and the connections sign-in, posting and the list need
 * stay free.
 */
export const SEARCHES_AT_ONCE = 2
/** Searches that may wait for a turn; one more is refused with 503 SERVICE_UNAVAILABLE and Retry-After. */
export const SEARCHES_WAITING = 16

/** The searches running in this process: by client (an IPv6 client by its /64), and in all. */
export class Searches {
  static readonly of = perContext((ctx: AddonContext) => Searches.forPool(poolSize(ctx.db)))
  private readonly running = new Map<string, number>()
  private busy = 0
  private readonly waiting: Array<() => void> = []

  /**
   * `rest`: after a search, the next waits as long as it took. The embedded database (a
   * pool of one) runs on this thread: its searches then take at most half of it.
   */
  constructor (private readonly atOnce = SEARCHES_AT_ONCE, private readonly mayWait = SEARCHES_WAITING, private readonly rest = false) {}

  /** The searches for a pool of `connections`. */
  static forPool (connections: number): Searches {
    return new Searches(Math.max(1, Math.min(SEARCHES_AT_ONCE, Math.floor(connections / 8))), SEARCHES_WAITING, connections <= 1)
  }

  /**
   * Runs `search` for the client at `ip`: one more than SEARCHES_PER_CLIENT at once from
   * the client is refused with 429; past SEARCHES_AT_ONCE in all it waits its turn, and
   * past SEARCHES_WAITING waiting it is refused with 503.
   */
  async run<T> (ip: string, search: () => Promise<T>): Promise<T> {
    const client = clientKey(ip)
    const now = this.running.get(client) ?? 0
    if (now >= SEARCHES_PER_CLIENT) throw new TooManyRequests(1)
    if (this.busy >= this.atOnce && this.waiting.length >= this.mayWait) throw busy()
    this.running.set(client, now + 1)
    try {
      await this.turn()
      const began = Date.now()
      try {
        return await search()
      } finally {
        this.done(this.rest ? Date.now() - began : 0)
      }
    } finally {
      const left = (this.running.get(client) ?? 1) - 1
      if (left > 0) this.running.set(client, left)
      else this.running.delete(client)
    }
  }

  private async turn (): Promise<void> {
    if (this.busy < this.atOnce) {
      this.busy++
      return
    }
    // The finishing search hands its turn over: `busy` stays as it is.
    await new Promise<void>(resolve => this.waiting.push(resolve))
  }

  private done (restMs: number): void {
    if (restMs > 0) {
      // The turn stays taken while the thread rests.
      setTimeout(() => this.done(0), restMs)
      return
    }
    const next = this.waiting.shift()
    if (next === undefined) this.busy--
    // In a turn of the event loop of its own: handed over at once, as a promise's
    // continuation, one search after another could run without a socket being read.
    else setImmediate(next)
  }
}

/** The connections of `db`'s pool (knex's `pool.max`; the embedded database's is one). */
function poolSize (db: Database): number {
  const max = (db.client as { config?: { pool?: { max?: unknown } } }).config?.pool?.max
  return typeof max === 'number' && max > 0 ? max : SEARCHES_AT_ONCE * 8
}

/**
 * Waits for the event loop's next turn. The embedded database runs each statement on this
 * thread, and its answer comes back as a promise's continuation: a search that sent its
 * next statement at once would hold the thread from one statement to the next while
 * sign-in, posting and the list wait to be read. A search takes this turn before each
 * statement.
 */
export const nextTurn = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

function busy (): ServiceUnavailable {
  const error = new ServiceUnavailable()
  error.headers['retry-after'] = '1'
  return error
}
