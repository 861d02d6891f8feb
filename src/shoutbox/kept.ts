import type { AddonContext } from '../sdk/index.js'
import { onChange, type ChangeNotice } from './changes/notice.js'

/**
 * A value read from the database and kept in memory while it is known to be current: a
 * change notice it is `staleAfter` (from any process), or a gap in the notices, forgets
 * it. While this process may be missing notices (the cluster's link is down) nothing is
 * kept. Readers at the same moment share one read.
 */
export class Kept<T> {
  private remembered: Promise<T> | undefined
  private value: T | undefined
  private generation = 0
  private readonly listeners = new Set<() => void>()

  constructor (private readonly ctx: AddonContext, private readonly read: () => Promise<T>, staleAfter: (notice: ChangeNotice) => boolean) {
    onChange(ctx, notice => {
      if (notice === undefined || staleAfter(notice)) this.forget()
    })
  }

  /** The value, when it is known to be current without asking the database. */
  get known (): T | undefined {
    return this.value
  }

  /** The value now: kept, or read (and kept, if nothing changed meanwhile). */
  async current (): Promise<T> {
    if (this.remembered !== undefined) return await this.remembered
    const generation = this.generation
    const reading = this.read()
    if (this.ctx.cluster.linked) this.remembered = reading
    try {
      const value = await reading
      if (this.ctx.cluster.linked && generation === this.generation && this.remembered === reading) this.value = value
      else if (this.remembered === reading) this.remembered = undefined
      return value
    } catch (error) {
      if (this.remembered === reading) this.remembered = undefined
      throw error
    }
  }

  /** Runs `listener` whenever the value is forgotten (it may have changed, on some process). */
  onForget (listener: () => void): void {
    this.listeners.add(listener)
  }

  private forget (): void {
    this.generation++
    this.remembered = undefined
    this.value = undefined
    for (const listener of this.listeners) listener()
  }
}
