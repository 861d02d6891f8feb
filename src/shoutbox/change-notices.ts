import type { AddonContext, SqlPart, Transaction } from '../sdk/index.js'
import type { ShoutEvent, ShoutEventKind } from './events-repository.js'

/**
 * The cluster topic every change to the board is announced on, to every host process
 * (this one too). The list endpoint's kept answer follows it (its CachePolicy).
 */
export const CHANGED = 'changed'

export interface ChangeNotice {
  readonly kind: ShoutEventKind | 'settings'
  /** The stream events the change wrote, in order. */
  readonly eventIds?: readonly number[]
  /**
   * The events themselves, when they fit in a notice: then no process reads them back
   * from the database to update its list or feed its streams.
   */
  readonly events?: readonly ShoutEvent[]
}

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; the notice travels inside
 * the cluster's own envelope, escaped once more, so it must stay well below.
 */
export const MAX_NOTICE_BYTES = 3000

/** Announces a change; every process hears it once `trx` commits (never if it rolls back). */
export async function announceChange (ctx: AddonContext, trx: Transaction, notice: ChangeNotice): Promise<void> {
  let payload = JSON.stringify(notice)
  if (notice.events !== undefined && Buffer.byteLength(payload) > MAX_NOTICE_BYTES) {
    const { events: _, ...withoutEvents } = notice
    payload = JSON.stringify(withoutEvents)
  }
  await ctx.cluster.notify(CHANGED, payload, trx)
}

/**
 * For a change announced by the statement that makes it (see `insertAnnounced`): the SQL
 * that sends the notice text `text`, an expression of that statement, when it commits…
 */
export function announcing (ctx: AddonContext): (text: SqlPart) => SqlPart {
  return text => ctx.cluster.notifying(CHANGED, text)
}

/** …and, once it has, this process hears the text it sent. */
export function announced (ctx: AddonContext, text: string): void {
  ctx.cluster.delivered(CHANGED, text)
}

/**
 * Runs `handler` for each change, from any process. A notice that cannot be read, or a
 * gap in the notices (the link was down), is `undefined`: anything may have changed.
 */
export function onChange (ctx: AddonContext, handler: (notice: ChangeNotice | undefined) => void): void {
  ctx.cluster.subscribe(CHANGED, payload => handler(readNotice(payload)))
  ctx.cluster.onResync(() => handler(undefined))
}

export function readNotice (payload: string): ChangeNotice | undefined {
  try {
    return JSON.parse(payload) as ChangeNotice
  } catch {
    return undefined
  }
}
