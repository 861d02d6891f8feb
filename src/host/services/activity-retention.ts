import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../sdk/index.js'
import type { SiteSettingsRepository } from '../identity/site-settings.js'
import { ACTIVITY_LOGS_TABLE } from '../database/tables.js'

const DAY_MS = 24 * 60 * 60 * 1000
const HOUR_MS = 60 * 60 * 1000

/**
 * The activity log's retention (`activityKeepDays`): every process, once an hour and at
 * its start, deletes the entries older than that many days (none while it is null). The
 * deletes of two processes at once overlap harmlessly: each entry goes once.
 */
export class ActivityRetention {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<number> | undefined

  constructor (private readonly db: Database, private readonly settings: SiteSettingsRepository, private readonly log: FastifyBaseLogger, private readonly now: () => number = Date.now) {}

  start (): void {
    const run = (): void => {
      this.running = this.prune().catch(error => {
        this.log.error({ err: error }, 'the activity log could not be pruned')
        return 0
      })
    }
    run()
    this.timer = setInterval(run, HOUR_MS)
    this.timer.unref()
  }

  async stop (): Promise<void> {
    clearInterval(this.timer)
    await this.running
  }

  /** Deletes the entries past `activityKeepDays`; answers how many went. */
  async prune (): Promise<number> {
    const { activityKeepDays } = await this.settings.read()
    if (activityKeepDays === null) return 0
    // `returning`, not the count: the embedded database's driver answers no count.
    const gone = await this.db(ACTIVITY_LOGS_TABLE).where('created_at', '<', this.now() - activityKeepDays * DAY_MS).delete().returning('id')
    return gone.length
  }
}
