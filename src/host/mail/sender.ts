import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../sdk/index.js'
import { retryDelayMs } from '../webhooks/sender.js'
import { MAIL_OUTBOX_TABLE } from './tables.js'
import type { MailTransport } from './transport.js'

export interface MailSenderOptions {
  /** How often a process looks for due mails. */
  readonly pollMs?: number
  /** Mails a process claims at once. */
  readonly batch?: number
  /** The wait after the failed try number `attempt` (1 for the first). */
  readonly retryDelayMs?: (attempt: number) => number
  readonly maxAttempts?: number
  /** A claim lasts this long: longer than the transport's slowest try. */
  readonly leaseMs?: number
  readonly now?: () => number
  /** How often a process looks for members due a mention mail. */
  readonly mentionsPollMs?: number
  /** When a process first looks for them after it starts. */
  readonly mentionsFirstRoundMs?: number
}

interface Claimed {
  id: string
  to_address: string
  subject: string
  body_text: string | null
  body_html: string | null
  headers: Record<string, string>
  attempts: number
}

/** How long a mail done with (sent or failed) stays in the panel's log. */
const KEEP_DONE_MS = 30 * 24 * 60 * 60_000
const PRUNE_EVERY_MS = 60 * 60_000
const MAX_ERROR_LENGTH = 500

/**
 * Sends the outbox's due mails, as the webhook sender sends deliveries: every process
 * runs one; a mail is claimed — `locked_until` set, in one statement over rows taken
 * `FOR UPDATE SKIP LOCKED` — by one process at a time, and a claim outlives the longest
 * try, so a process killed mid-send leaves its claims to run out and be taken again. A
 * mail the server accepted is marked sent and its body cleared (a reset link is a key);
 * anything else is tried again after `retryDelayMs`, up to `maxAttempts` tries.
 */
export class MailSender {
  private readonly pollMs: number
  private readonly batch: number
  private readonly maxAttempts: number
  private readonly delay: (attempt: number) => number
  private readonly leaseMs: number
  private readonly now: () => number
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = true
  private again = false
  private lastPruneAt = 0

  constructor (private readonly db: Database, private readonly transport: MailTransport, private readonly from: string, private readonly log: FastifyBaseLogger, options: MailSenderOptions = {}) {
    this.pollMs = options.pollMs ?? 1000
    this.batch = options.batch ?? 20
    this.maxAttempts = options.maxAttempts ?? 10
    this.delay = options.retryDelayMs ?? retryDelayMs
    this.leaseMs = options.leaseMs ?? 120_000
    this.now = options.now ?? Date.now
  }

  start (): void {
    if (!this.transport.available) return
    this.stopped = false
    this.schedule(0)
  }

  /** Looks for due mails now (a mail was just committed), not at the next poll. */
  kick (): void {
    if (this.stopped) return
    if (this.running !== undefined) {
      this.again = true
      return
    }
    this.schedule(0)
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
    this.transport.close()
  }

  private schedule (ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.again = false
      this.running = this.round().catch(error => {
        this.log.error({ err: error }, 'mail: a round failed')
        return false
      }).then(claimedFull => {
        this.running = undefined
        if (!this.stopped) this.schedule(claimedFull || this.again ? 0 : this.pollMs)
      })
    }, ms)
    this.timer.unref()
  }

  private async round (): Promise<boolean> {
    await this.pruneIfDue()
    const claimed = await this.claim()
    for (const mail of claimed) await this.record(mail, await this.send(mail))
    return claimed.length === this.batch
  }

  private async pruneIfDue (): Promise<void> {
    const now = this.now()
    if (now - this.lastPruneAt < PRUNE_EVERY_MS) return
    this.lastPruneAt = now
    await this.db(MAIL_OUTBOX_TABLE).whereNot('status', 'pending').where('created_at', '<', now - KEEP_DONE_MS).delete()
  }

  private async claim (): Promise<Claimed[]> {
    const now = this.now()
    const result = await this.db.raw<{ rows: Claimed[] }>(`
      update ${MAIL_OUTBOX_TABLE} m set locked_until = :lease, attempts = m.attempts + 1
      from (select id from ${MAIL_OUTBOX_TABLE}
            where status = 'pending' and next_attempt_at <= :now and (locked_until is null or locked_until <= :now)
            order by next_attempt_at, created_at limit :batch for update skip locked) due
      where m.id = due.id
      returning m.id, m.to_address, m.subject, m.body_text, m.body_html, m.headers, m.attempts`,
    { now, lease: now + this.leaseMs, batch: this.batch })
    return result.rows
  }

  private async send (mail: Claimed): Promise<string | undefined> {
    try {
      await this.transport.send({ from: this.from, to: mail.to_address, subject: mail.subject, text: mail.body_text ?? '', html: mail.body_html ?? '', headers: mail.headers })
      return undefined
    } catch (error) {
      return ((error as Error).message || 'the server refused the mail').slice(0, MAX_ERROR_LENGTH)
    }
  }

  /** What the try came to, written only while the claim is still this try's. */
  private async record (mail: Claimed, error: string | undefined): Promise<void> {
    const sent = error === undefined
    const failed = !sent && mail.attempts >= this.maxAttempts
    if (!sent) this.log.warn({ mail: mail.id, attempt: mail.attempts, reason: error }, 'mail not accepted')
    await this.db(MAIL_OUTBOX_TABLE)
      .where({ id: mail.id, attempts: mail.attempts, status: 'pending' })
      .update({
        status: sent ? 'sent' : failed ? 'failed' : 'pending',
        last_error: error ?? null,
        locked_until: null,
        ...(sent || failed ? { body_text: null, body_html: null } : { next_attempt_at: this.now() + this.delay(mail.attempts) })
      })
  }
}
