import type { AddonContext } from '../sdk/index.js'
import { announceChange } from './changes/notice.js'
import { ShoutDeleted } from './events.js'
import { perContext } from './per-context.js'
import { pinsRepository } from './pins-repository.js'
import { ShoutboxSettings } from './settings.js'
import { shoutsRepository } from './shouts-repository.js'
import { RETENTION_LOCK } from './tables.js'
import { mentionKey } from './mentions.js'
import { isConversation } from './rooms.js'

const RUN_EVERY_MS = 3_600_000
const DAY_MS = 86_400_000
/**
 * The most shouts one run deletes: a run is one transaction, and must end well within
 * the statement timeout. A run that reaches it is followed by another at once.
 */
export const MAX_PRUNED_PER_RUN = 10_000
/** Event ids per change notice: a NOTIFY payload must stay below 8000 bytes. */
const IDS_PER_NOTICE = 200

export interface PruneRun {
  /** False when another process was pruning at that moment: this run did nothing. */
  readonly ran: boolean
  readonly pruned: number
}

/**
 * Retention: with `keepDays` set, shouts dated more than that many days ago are deleted,
 * pinned ones never. Every process runs it at start and every hour; an advisory lock
 * taken in the run's transaction lets one process at a time prune, and a process that
 * finds it taken skips that run. A run deletes, records each deletion in the stream's
 * history as a delete does, writes one PRUNED_SHOUTS entry and announces the change, in
 * one transaction. A run that deletes nothing writes no entry: an entry every hour saying
 * nothing happened would bury what people did.
 */
export class Retention {
  static readonly of = perContext(ctx => new Retention(ctx))

  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> = Promise.resolve()
  private stopped = false

  private constructor (private readonly ctx: AddonContext) {}

  start (): void {
    this.timer = setInterval(() => this.runInBackground(), RUN_EVERY_MS).unref()
    this.runInBackground()
  }

  /** Waits for a run in progress, so the database is not closed under it. */
  async stop (): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
  }

  /** One run, now: what `keepDays` says is too old goes, unless another process is pruning. */
  async run (now = Date.now()): Promise<PruneRun> {
    const { ctx } = this
    // Read before the transaction: the embedded database has one connection, which the transaction holds.
    const { keepDays } = await ShoutboxSettings.of(ctx).current()
    if (keepDays === null) return { ran: true, pruned: 0 }
    return ctx.transaction(async trx => {
      const { rows: [lock] } = await trx.raw<{ rows: Array<{ locked: boolean }> }>(
        'select pg_try_advisory_xact_lock(?, hashtext(current_schema())) as locked', [RETENTION_LOCK])
      if (lock?.locked !== true) return { ran: false, pruned: 0 }
      // No pin may land on a shout this run is deleting.
      await pinsRepository(ctx.db).lock(trx)
      const pruned = await shoutsRepository(ctx.db).prune(now - keepDays * DAY_MS, MAX_PRUNED_PER_RUN, trx)
      if (pruned.length === 0) return { ran: true, pruned: 0 }
      await ctx.activityLog.write({ type: 'PRUNED_SHOUTS', user: null, details: { count: pruned.length } }, trx)
      for (let start = 0; start < pruned.length; start += IDS_PER_NOTICE) {
        const part = pruned.slice(start, start + IDS_PER_NOTICE)
        await announceChange(ctx, 'shout-deleted', part.map(({ eventId, shout }) => ({ id: eventId, kind: 'shout-deleted', shout: { id: shout.id, room: shout.room } })), trx)
      }
      for (const { shout } of pruned) if (!isConversation(shout.room)) ctx.events.emit(ShoutDeleted, shout, trx)
      await ctx.notifications.remove(pruned.map(({ shout }) => mentionKey(shout.id)), trx)
      return { ran: true, pruned: pruned.length }
    })
  }

  private runInBackground (): void {
    this.running = this.running
      .then(async () => {
        // A backlog (keepDays just set on a large board) drains run after run.
        while (!this.stopped && (await this.run()).pruned === MAX_PRUNED_PER_RUN);
      })
      .catch(error => this.ctx.log.warn({ err: error }, 'pruning old shouts failed'))
  }
}
