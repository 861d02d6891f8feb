import { clientKey } from '../sdk/index.js'

/** Replays of the stream's history one client may ask for in a minute (a reconnect's `Last-Event-ID`). */
export const REPLAYS_PER_MINUTE = 10
const MINUTE_MS = 60_000
/** Clients remembered at most; past it the oldest are forgotten (each costs a few numbers). */
const MAX_CLIENTS = 50_000

/**
 * Counts each client's replays (an IPv4 address, or an IPv6 /64) in this process, over the
 * last minute: a page that reconnects now and then replays; one that asks for the history
 * over and over is answered `reset` instead (it loads the list again, one cached answer),
 * so the history cannot be pulled as a flood. Per process: a client spread over several
 * processes gets this many from each, which still bounds it.
 */
export class ReplayLimit {
  private readonly recent = new Map<string, number[]>()

  constructor (private readonly now: () => number = Date.now) {}

  /** Whether the client at `ip` may replay now; counts it when so. */
  take (ip: string): boolean {
    const key = clientKey(ip)
    const now = this.now()
    const times = (this.recent.get(key) ?? []).filter(at => now - at < MINUTE_MS)
    if (times.length >= REPLAYS_PER_MINUTE) {
      this.recent.set(key, times)
      return false
    }
    times.push(now)
    this.recent.delete(key)
    if (this.recent.size >= MAX_CLIENTS) this.recent.delete(this.recent.keys().next().value!)
    this.recent.set(key, times)
    return true
  }
}
