import type { Actor, AddonContext } from '../sdk/index.js'
import { announceChange } from './change-notices.js'
import { ShoutCreated } from './events.js'
import { perContext } from './per-context.js'
import type { Shout } from './schemas.js'
import { shoutsRepository, type NewShout } from './shouts-repository.js'

export interface PublishOptions {
  /**
   * Writes the CREATED_SHOUT entry with the shout: staff publishing through the panel is
   * on the record; members talking in the widget are not (the feed is the staff's).
   */
  readonly logged: boolean
}

interface Waiting {
  readonly shout: NewShout
  readonly user: Actor
  readonly logged: boolean
  readonly resolve: (shout: Shout) => void
  readonly reject: (error: unknown) => void
}

/** The most publishes written in one transaction. */
const MAX_BATCH = 256

/**
 * Writes publishes the way PostgreSQL writes commits: together. While one transaction
 * is being written, the publishes that arrive wait, and the next transaction takes them
 * all — their shouts, stream events and CREATED_SHOUT entries (of the logged ones), and one change notice —
 * in the same four statements whatever their number. A publish that finds nothing
 * being written goes at once (with any read in the same turn of the event loop); under
 * load the cost of a transaction is shared, which is what lets one process take
 * thousands of publishes a second.
 *
 * Each publish is answered only once its transaction has committed. Should a statement
 * fail, nothing was committed, and the publishes of that transaction are written again,
 * each alone, so that one that cannot be stored fails by itself and the others land. Should
 * the commit itself fail, the outcome is unknown and nothing is written twice: each of them
 * gets the error.
 */
export class Publisher {
  static readonly of = perContext(ctx => new Publisher(ctx))

  private waiting: Waiting[] = []
  private writing = false
  private readonly published

  private constructor (private readonly ctx: AddonContext) {
    this.published = ctx.metrics.counter('publishes_total', 'Shouts published (committed)')
  }

  /** Stores a checked message as `user`'s shout, dated now; resolves once it is committed. */
  publish (user: Actor, message: string, { logged }: PublishOptions): Promise<Shout> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ shout: { message, username: user.username, date: Date.now(), authorId: user.id }, user, logged, resolve, reject })
      if (this.writing) return
      this.writing = true
      // Requests already read from the network in this turn of the event loop join this
      // one. It matters for the embedded database, whose statements run without letting
      // the event loop turn: without this wait, each of its transactions would hold one publish.
      setImmediate(() => { void this.writeAll() })
    })
  }

  private async writeAll (): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.write(this.waiting.splice(0, MAX_BATCH))
    } finally {
      this.writing = false // `write` answers every failure itself; this only guards against a stuck publisher
    }
  }

  /** Writes `batch` in one transaction and answers each of its publishes. */
  private async write (batch: readonly Waiting[]): Promise<void> {
    const { ctx } = this
    let committing = false
    try {
      const recorded = await ctx.transaction(async trx => {
        const recorded = await shoutsRepository(ctx.db).insert(batch.map(waiting => waiting.shout), trx)
        await ctx.activityLog.write(recorded.flatMap(({ shout }, index) => batch[index]!.logged
          ? [{ type: 'CREATED_SHOUT', user: batch[index]!.user, details: { message: shout.message } }]
          : []), trx)
        await announceChange(ctx, trx, {
          kind: 'shout-created',
          eventIds: recorded.map(({ eventId }) => eventId),
          events: recorded.map(({ eventId, shout }) => ({ id: eventId, kind: 'shout-created', shout }))
        })
        for (const { shout } of recorded) ctx.events.emit(ShoutCreated, shout, trx)
        committing = true
        return recorded
      })
      this.published.inc(batch.length)
      batch.forEach((waiting, index) => waiting.resolve(recorded[index]!.shout))
    } catch (error) {
      if (batch.length > 1 && !committing) await Promise.all(batch.map(waiting => this.write([waiting])))
      else for (const waiting of batch) waiting.reject(error)
    }
  }
}
