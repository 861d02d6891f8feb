import type { Database } from '../../sdk/index.js'
import { WEBHOOK_DELIVERIES_TABLE } from '../database/tables.js'

/** What a try came to, as written to its delivery. */
export interface Written {
  readonly id: string
  /** The try's number: written only while the claim is still this try's. */
  readonly attempts: number
  readonly status: 'pending' | 'delivered' | 'failed'
  readonly responseCode: number | null
  /** The next try's time, for one still pending. */
  readonly nextAttemptAt: number | null
}

/**
 * Writes the outcomes of tries, those that end while a write is under way gathered into
 * the next: one statement (one commit) for many deliveries, not one each, which is what
 * lets one process keep up with a busy hook.
 */
export class OutcomeWriter {
  private waiting: Array<{ written: Written, done: (error?: unknown) => void }> = []
  private writing: Promise<void> | undefined

  constructor (private readonly db: Database) {}

  /** Resolves once `written` is in the database (rejects when its statement failed). */
  async write (written: Written): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ written, done: error => { if (error === undefined) resolve(); else reject(error) } })
      if (this.writing === undefined) this.writing = this.drain()
    })
  }

  private async drain (): Promise<void> {
    // Outcomes of the same turn of the event loop go together.
    await new Promise(resolve => setImmediate(resolve))
    while (this.waiting.length > 0) {
      const batch = this.waiting
      this.waiting = []
      let failure: unknown
      try {
        await this.db.raw(`
          update ${WEBHOOK_DELIVERIES_TABLE} d set status = v.status, response_code = v.response_code, locked_until = null,
                 next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at)
          from jsonb_to_recordset(?::jsonb) as v(id uuid, attempts int, status text, response_code int, next_attempt_at bigint)
          where d.id = v.id and d.attempts = v.attempts and d.status = 'pending'`,
        [JSON.stringify(batch.map(({ written }) => ({ id: written.id, attempts: written.attempts, status: written.status, response_code: written.responseCode, next_attempt_at: written.nextAttemptAt })))])
      } catch (error) {
        failure = error
      }
      for (const { done } of batch) done(failure)
    }
    this.writing = undefined
  }
}
