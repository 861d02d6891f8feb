import type { AddonContext, Transaction } from '../sdk/index.js'
import type { ShoutEventKind } from './events-repository.js'

/**
 * The cluster topic every change to the board is announced on, to every host process
 * (this one too). The list endpoint's cached answer is invalidated by it (its CachePolicy).
 */
export const CHANGED = 'changed'

export interface ChangeNotice {
  readonly kind: ShoutEventKind | 'settings'
  /** The stream events the change wrote, in order. */
  readonly eventIds?: readonly number[]
}

/** Announces a change; every process hears it once `trx` commits (never if it rolls back). */
export async function announceChange (ctx: AddonContext, trx: Transaction, notice: ChangeNotice): Promise<void> {
  await ctx.cluster.notify(CHANGED, JSON.stringify(notice), trx)
}

/**
 * Runs `handler` for each change, from any process. A notice that cannot be read, or a
 * gap in the notices (the link was down), is `undefined`: anything may have changed.
 */
export function onChange (ctx: AddonContext, handler: (notice: ChangeNotice | undefined) => void): void {
  ctx.cluster.subscribe(CHANGED, payload => handler(parse(payload)))
  ctx.cluster.onResync(() => handler(undefined))
}

function parse (payload: string): ChangeNotice | undefined {
  try {
    return JSON.parse(payload) as ChangeNotice
  } catch {
    return undefined
  }
}
