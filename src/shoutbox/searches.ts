import { ServiceUnavailable, TooManyRequests, clientKey, type AddonContext } from '../sdk/index.js'
import { perContext } from './per-context.js'

/** Searches one client may run at once: each reads up to a bounded range of the board. */
export const SEARCHES_PER_CLIENT = 2
/**
 * Searches this process runs at once, whoever asks: each holds a database connection
 * while it reads, so a crowd of searchers takes at most this many of the pool's, and the
 * connections sign-in, posting and the list need stay free. (The embedded database has
 * one connection: a search's statements take turns with everyone else's.)
 */
export const SEARCHES_AT_ONCE = 2
/** Searches that may wait for a turn; one more is refused with 503 SERVICE_UNAVAILABLE and Retry-After. */
export const SEARCHES_WAITING = 16

/** The searches running in this process: by client (an IPv6 client by its /64), and in all. */
export class Searches {
  static readonly of = perContext((_ctx: AddonContext) => new Searches())
  private readonly running = new Map<string, number>()
  private busy = 0
  private readonly waiting: Array<() => void> = []

  constructor (private readonly atOnce = SEARCHES_AT_ONCE, private readonly mayWait = SEARCHES_WAITING) {}

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
      try {
        return await search()
      } finally {
        this.done()
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

  private done (): void {
    const next = this.waiting.shift()
    if (next === undefined) this.busy--
    else next()
  }
}

function busy (): ServiceUnavailable {
  const error = new ServiceUnavailable()
  error.headers['retry-after'] = '1'
  return error
}
