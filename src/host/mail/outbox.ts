import type { Database, Transaction } from '../../sdk/index.js'
import { MAIL_OUTBOX_TABLE } from './tables.js'

export type MailStatus = 'pending' | 'sent' | 'failed'

/** A mail as it is written: composed already, in its reader's language. */
export interface OutgoingMail {
  /** Whose mail it is: erasing them takes it (null: an address no account holds, e.g. a test mail). */
  readonly userId: number | null
  /** What it is about (`password-reset`, `test`, …): the panel shows it. */
  readonly kind: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers?: Readonly<Record<string, string>>
}

/** A mail as the panel lists it: never its body (a reset link is a key to an account). */
export interface MailEntry {
  readonly id: string
  readonly kind: string
  readonly to: string
  readonly subject: string
  readonly status: MailStatus
  readonly attempts: number
  readonly lastError: string | null
  readonly nextAttemptAt: number | null
  readonly createdAt: number
}

interface Row { id: string, kind: string, to_address: string, subject: string, status: MailStatus, attempts: number, last_error: string | null, next_attempt_at: number | string, created_at: number | string }

const toEntry = (row: Row): MailEntry => ({
  id: row.id,
  kind: row.kind,
  to: row.to_address,
  subject: row.subject,
  status: row.status,
  attempts: row.attempts,
  lastError: row.last_error,
  nextAttemptAt: row.status === 'pending' ? Number(row.next_attempt_at) : null,
  createdAt: Number(row.created_at)
})

/**
 * The mail outbox: a mail is written inside the transaction that asks for it, so a change
 * that committed has its mail whatever happens to the process next. The sender
 * (`sender.ts`) reads it.
 */
export function mailOutboxRepository (db: Database, now: () => number = Date.now) {
  return {
    async enqueue (mail: OutgoingMail, trx: Transaction): Promise<string> {
      const at = now()
      const [row] = await trx(MAIL_OUTBOX_TABLE).insert({
        user_id: mail.userId,
        kind: mail.kind,
        to_address: mail.to,
        subject: mail.subject,
        body_text: mail.text,
        body_html: mail.html,
        headers: JSON.stringify(mail.headers ?? {}),
        next_attempt_at: at,
        created_at: at
      }).returning<Array<{ id: string }>>('id')
      return row!.id
    },

    /** The last `limit` mails, the newest first. */
    async list (limit = 100): Promise<MailEntry[]> {
      const rows: Row[] = await db(MAIL_OUTBOX_TABLE).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit)
      return rows.map(toEntry)
    },

    async find (id: string): Promise<MailEntry | undefined> {
      const row: Row | undefined = await db(MAIL_OUTBOX_TABLE).where({ id }).first()
      return row === undefined ? undefined : toEntry(row)
    },

    /** Mails of `kind` to `userId` written since `since` (inside `trx`): what caps one inbox's flood. */
    async countSince (userId: number, kind: string, since: number, trx: Database = db): Promise<number> {
      const [row] = await trx(MAIL_OUTBOX_TABLE).where({ user_id: userId, kind }).where('created_at', '>=', since).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    }
  }
}

export type MailOutboxRepository = ReturnType<typeof mailOutboxRepository>
