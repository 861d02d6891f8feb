import type { FastifyBaseLogger } from 'fastify'
import type { AddonContext, Transaction } from '../../sdk/index.js'

interface Subscription {
  readonly owner: string
  readonly ctx: AddonContext
  handle (payload: unknown, ctx: AddonContext): Promise<void> | void
}

/**
 * Delivers events to the listeners of every started addon, in this process. Delivery is
 * asynchronous: the emitter never waits for, nor fails because of, a listener.
 */
export class EventBus {
  private readonly subscriptions = new Map<string, Subscription[]>()
  private readonly pending = new Set<Promise<void>>()

  constructor (private readonly log: FastifyBaseLogger) {}

  subscribe (event: string, subscription: Subscription): void {
    const list = this.subscriptions.get(event) ?? []
    list.push(subscription)
    this.subscriptions.set(event, list)
  }

  unsubscribeOwner (owner: string): void {
    for (const [event, list] of this.subscriptions) {
      this.subscriptions.set(event, list.filter(s => s.owner !== owner))
    }
  }

  /** With `trx`: delivered once it commits, dropped if it rolls back. */
  emit (event: string, payload: unknown, trx?: Transaction): void {
    if (trx === undefined) {
      this.dispatch(event, payload)
      return
    }
    trx.executionPromise.then(() => this.dispatch(event, payload), () => {})
  }

  /** Waits until every delivery started so far has finished (tests, shutdown). */
  async drain (): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
  }

  private dispatch (event: string, payload: unknown): void {
    for (const subscription of this.subscriptions.get(event) ?? []) {
      const delivery = Promise.resolve()
        .then(() => subscription.handle(payload, subscription.ctx))
        .catch((error: unknown) => {
          this.log.error({ err: error, event, addon: subscription.owner }, 'event listener failed')
        })
        .finally(() => this.pending.delete(delivery))
      this.pending.add(delivery)
    }
  }
}
