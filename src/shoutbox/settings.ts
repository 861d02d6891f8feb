import type { AddonContext } from '../sdk/index.js'
import { CHANGE_KINDS } from './changes/kinds.js'
import { Kept } from './kept.js'
import { perContext } from './per-context.js'
import type { Settings } from './schemas.js'

/**
 * The one way to read the addon's settings: from memory while they are known to be
 * current, else from the database (where every host process reads the same). A settings
 * change announced from any process, or a gap in the notices, forgets them.
 */
export class ShoutboxSettings {
  static readonly of = perContext(ctx => new ShoutboxSettings(ctx))

  private readonly kept: Kept<Settings>

  private constructor (private readonly ctx: AddonContext) {
    this.kept = new Kept(ctx, () => this.read(), notice => CHANGE_KINDS[notice.kind].settings)
  }

  /** The settings, when they are known to be current without asking the database. */
  get known (): Settings | undefined {
    return this.kept.known
  }

  /** The settings now, for a request. */
  async current (): Promise<Settings> {
    return await this.kept.current()
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
      reportMinAccountAgeHours: values.reportMinAccountAgeHours as number,
      holdFirstShouts: values.holdFirstShouts as number,
      autoMuteAfter: values.autoMuteAfter as number,
      autoMuteMinutes: values.autoMuteMinutes as number,
      guestProofCost: values.guestProofCost as number,
      holdGuestShouts: values.holdGuestShouts as boolean,
      directMessages: values.directMessages as boolean,
      maxUploadBytes: values.maxUploadBytes as number,
      holdUploads: values.holdUploads as boolean
    }
  }
}
