import type { AddonContext } from '../sdk/index.js'
import { CHANGE_KINDS } from './changes/kinds.js'
import { onChange } from './changes/notice.js'
import { perContext } from './per-context.js'
import type { Settings } from './schemas.js'

/**
 * The one way to read the addon's settings: from memory while they are known to be
 * current, else from the database (where every host process reads the same). A settings
 * change announced from any process, or a gap in the notices, forgets them.
 */
export class ShoutboxSettings {
  static readonly of = perContext(ctx => new ShoutboxSettings(ctx))

  private remembered: Settings | undefined
  private generation = 0

  private constructor (private readonly ctx: AddonContext) {
    onChange(ctx, notice => {
      if (notice === undefined || CHANGE_KINDS[notice.kind].settings) this.forget()
    })
  }

  /** The settings, when they are known to be current without asking the database. */
  get known (): Settings | undefined {
    return this.remembered
  }

  /** The settings now, for a request. */
  async current (): Promise<Settings> {
    if (this.remembered !== undefined) return this.remembered
    const generation = this.generation
    const linked = this.ctx.cluster.linked
    const settings = await this.read()
    if (linked && this.ctx.cluster.linked && generation === this.generation) this.remembered = settings
    return settings
  }

  /** Straight from the database (after a change, to answer with what was stored). */
  async read (): Promise<Settings> {
    const values = await this.ctx.config.all()
    return {
      maxShouts: values.maxShouts as number | null,
      maxMessageLength: values.maxMessageLength as number,
      minSecondsBetweenShouts: values.minSecondsBetweenShouts as number,
      maxShoutsPerMinute: values.maxShoutsPerMinute as number,
      editWindowSeconds: values.editWindowSeconds as number,
      maxPinned: values.maxPinned as number,
      keepDays: values.keepDays as number | null,
      reactions: values.reactions as string[],
      hideAfterReports: values.hideAfterReports as number,
      holdFirstShouts: values.holdFirstShouts as number,
      autoMuteAfter: values.autoMuteAfter as number,
      autoMuteMinutes: values.autoMuteMinutes as number
    }
  }

  private forget (): void {
    this.generation++
    this.remembered = undefined
  }
}
