import type { AddonContext } from '../../sdk/index.js'
import { perContext } from '../per-context.js'
import { reviewRepository } from '../review.js'
import { deleteShout } from '../shout-changes.js'
import { guestsRepository } from './guests-repository.js'
import { proofsRepository } from './proof.js'

/** The most shouts one erasure takes (a guest with more asks again). */
const ERASED_AT_ONCE = 500
const HOUR_MS = 3_600_000

/**
 * Erasure by address: the guests' shouts sent from `ip` (its HMAC of today or yesterday:
 * older shouts no longer keep it), on the board — deleted as any delete is, their text
 * gone from the stream's history and pending deliveries — or off it, and the proofs used
 * from it. Answers how many shouts went.
 */
export async function eraseGuestShouts (ctx: AddonContext, ip: string): Promise<number> {
  const keys = await ctx.addresses.recentKeysOf(ip)
  const guests = guestsRepository(ctx.db)
  return await ctx.transaction(async trx => {
    const shouts = await guests.shoutsFrom(keys, ERASED_AT_ONCE, trx)
    for (const shout of shouts) {
      if (shout.onBoard) await deleteShout(ctx, shout.id, trx)
      else await reviewRepository(ctx.db).remove(shout.id, trx)
    }
    await guests.forgetProofsOf(keys, trx)
    return shouts.length
  })
}

/**
 * What guests leave is kept no longer than it serves, on every process (each run is
 * idempotent): used proofs an hour past their expiry (the flood rules look back an hour at
 * most), mutes that ended, and what stands for a guest's address on shouts over two days
 * old (no key of today or yesterday matches it: it serves nothing).
 */
export class GuestRetention {
  static readonly of = perContext(ctx => new GuestRetention(ctx))

  private timer: NodeJS.Timeout | undefined

  private constructor (private readonly ctx: AddonContext) {}

  start (): void {
    this.timer = setInterval(() => { void this.run() }, HOUR_MS).unref()
    void this.run()
  }

  stop (): void {
    clearInterval(this.timer)
  }

  async run (): Promise<void> {
    const now = Date.now()
    try {
      await proofsRepository(this.ctx.db).prune(now - HOUR_MS)
      await guestsRepository(this.ctx.db).prune(now, now - 48 * HOUR_MS)
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not prune what guests left')
    }
  }
}
