import type { ServerResponse } from 'node:http'
import { TooManyRequests } from '../../sdk/index.js'
import { clientKey } from '../../sdk/client-address.js'

export interface HeavyLimits {
  /** Heavy answers one client (see `clientKey`) may be sent at a time. */
  readonly perClient: number
  /** Heavy answers of the whole process at a time. */
  readonly total: number
}

export const DEFAULT_HEAVY_LIMITS: HeavyLimits = { perClient: 2, total: 32 }

/** What a refused client is told to wait: a heavy answer ends when its client has read it, at no set time. */
const RETRY_AFTER_SECONDS = 10

/**
 * The heavy answers (exports, an unbounded list) this process is sending: at most
 * `perClient` per client address and `total` in all, so that one client cannot have the
 * process read and write several long answers for it at once, nor hold every database
 * connection's turn with them. Counted per process, as open event streams are: a client
 * whose requests a load balancer spreads over N processes may hold N times as many.
 */
export class HeavyAnswers {
  private readonly perClient = new Map<string, number>()
  private total = 0

  constructor (private readonly limits: HeavyLimits = DEFAULT_HEAVY_LIMITS) {}

  /** Heavy answers being sent now to the client at `address`. */
  heldBy (address: string): number {
    return this.perClient.get(clientKey(address)) ?? 0
  }

  /**
   * Admits a heavy answer for the client at `address`, to be written to `response`: its
   * place is held until the response closes (sent, cut short, or its client gone). Beyond
   * a limit it throws TooManyRequests, before anything is written.
   */
  admit (address: string, response: ServerResponse): void {
    const client = clientKey(address)
    const held = this.perClient.get(client) ?? 0
    if (held >= this.limits.perClient || this.total >= this.limits.total) throw new TooManyRequests(RETRY_AFTER_SECONDS)
    this.perClient.set(client, held + 1)
    this.total++
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      this.total--
      const left = (this.perClient.get(client) ?? 1) - 1
      if (left > 0) this.perClient.set(client, left)
      else this.perClient.delete(client)
    }
    // A response already closed (its client gone while the request was checked) sends no 'close' any more.
    if (response.destroyed || response.writableFinished) queueMicrotask(release)
    else response.once('close', release)
  }
}
