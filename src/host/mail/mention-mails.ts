import type { FastifyBaseLogger } from 'fastify'
import { Viewer, type Database, type SessionUser, type Transaction } from '../../sdk/index.js'
import { HOST_ID } from '../addons/loader.js'
import { NOTIFICATIONS_TABLE, USER_PREFERENCES_TABLE, USERS_TABLE } from '../database/tables.js'
import type { I18n } from '../services/i18n.js'
import type { VisibleNotifications } from '../services/notifications.js'
import type { OutgoingMail } from './outbox.js'
import { composeList } from './templates.js'
import { unsubscribeToken } from './unsubscribe.js'

/** A mention still unread this long is mailed (with every other unread one) to a member who chose `batched`. */
export const MENTION_MAIL_DELAY_MS = 15 * 60_000
/** A member who chose `daily` gets at most one digest in this time. */
export const DIGEST_EVERY_MS = 24 * 60 * 60_000
/** Mentions listed in one mail; the rest are counted. */
const LISTED = 20
/** Members decided about in one transaction. */
const BATCH = 20

export interface MentionMailerOptions {
  /** How often a process looks for members due a mail. */
  readonly pollMs: number
  /** When it first looks after it starts: soon, so a restarted process catches up. */
  readonly firstRoundMs: number
  readonly now: () => number
}

export interface MentionMailerDeps {
  readonly db: Database
  readonly strings: I18n
  readonly log: FastifyBaseLogger
  readonly siteUrl: string
  readonly siteName: string
  /** The key an unsubscribe link is signed with. */
  readonly unsubscribeKey: Buffer
  /** The account as a session of theirs would act (undefined: gone or disabled). */
  readonly account: (id: number, trx?: Database) => Promise<SessionUser | undefined>
  /** The notifications `viewer` may see now: the access policy, asked at sending time. */
  readonly visible: (viewer: Viewer & { readonly user: SessionUser }) => Promise<VisibleNotifications>
  readonly enqueue: (mail: OutgoingMail, trx: Transaction) => Promise<string>
  /** Whether the addons have started here: before, the policy cannot yet say what a member may read, so nothing is decided. */
  readonly started: () => boolean
}

interface Due { user_id: number, email: string, username: string, email_mentions: 'batched' | 'daily', mentions_mailed_through: number | string, mail_locale: string | null }
interface Mention { id: number | string, addon_id: string, kind: string, data: { shoutId?: number, room?: string, by?: string, excerpt?: string }, created_at: number | string }

/**
 * Mails members their unread mentions, as they chose (`emailMentions`): `batched`, once a
 * mention has been unread for 15 minutes, every unread one in one mail; `daily`, one
 * digest a day. Every process runs one. Members due are taken `FOR UPDATE SKIP LOCKED`, so
 * one process decides about each; the decision — the mail written to the outbox and the
 * newest mention it covers (`mentions_mailed_through`) — commits in one transaction, so a
 * process killed at any point either mailed and remembered, or did neither (the outbox
 * then sends it, as any mail). Which mentions a mail lists is asked of the access policy
 * when it is written: a mention in a room the member may no longer read is left out.
 */
export class MentionMailer {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = true

  constructor (private readonly deps: MentionMailerDeps, private readonly options: MentionMailerOptions) {}

  start (): void {
    this.stopped = false
    this.schedule(this.options.firstRoundMs)
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private schedule (ms = this.options.pollMs): void {
    this.timer = setTimeout(() => {
      this.running = this.round().then(() => {}, error => this.deps.log.error({ err: error }, 'mention mails: a round failed')).then(() => {
        this.running = undefined
        if (!this.stopped) this.schedule()
      })
    }, ms)
    this.timer.unref()
  }

  /** Decides about the members due a mail now, a batch at a time; answers how many were mailed. */
  async round (): Promise<number> {
    if (!this.deps.started()) return 0
    let mailed = 0
    let after = 0
    for (;;) {
      const due = await this.due(this.deps.db, after)
      for (const { user_id: userId } of due) if (await this.decide(userId)) mailed++
      if (due.length < BATCH || this.stopped) return mailed
      after = due[due.length - 1]!.user_id
    }
  }

  /**
   * Members due a mail now (ids above `after`), read with `trx`: inside a transaction their
   * preference rows are taken `FOR UPDATE SKIP LOCKED`, so one process decides for each.
   */
  private async due (trx: Database, after: number, only?: number): Promise<Due[]> {
    const now = this.options.now()
    const { rows } = await trx.raw<{ rows: Due[] }>(`
      select p.user_id, u.email, u.username, p.email_mentions, p.mentions_mailed_through, coalesce(p.locale, p.mail_locale) as mail_locale
      from ${USER_PREFERENCES_TABLE} p join ${USERS_TABLE} u on u.id = p.user_id
      where p.email_mentions <> 'off' and not u.disabled and not u.bot and not u.email_unconfirmed
        and p.user_id > :after ${only === undefined ? '' : 'and p.user_id = :only'}
        and (p.email_mentions = 'batched' or coalesce(p.mentions_mailed_at, 0) <= :dayAgo)
        and exists (select 1 from ${NOTIFICATIONS_TABLE} n
                    where n.user_id = p.user_id and n.kind = 'mention' and not n.read and n.id > p.mentions_mailed_through
                      and (p.email_mentions = 'daily' or n.created_at <= :cutoff))
      order by p.user_id limit :batch
      ${trx.isTransaction === true ? 'for update of p skip locked' : ''}`,
    { after, dayAgo: now - DIGEST_EVERY_MS, cutoff: now - MENTION_MAIL_DELAY_MS, batch: BATCH, ...(only === undefined ? {} : { only }) })
    return rows
  }

  /**
   * One member's mail, written with the newest mention it covers; none when the policy
   * shows them none. What they may read is asked first, outside the transaction (the
   * policy reads rooms through its own connections; the embedded database has one).
   */
  private async decide (userId: number): Promise<boolean> {
    const user = await this.deps.account(userId)
    const visible = user === undefined ? undefined : await this.deps.visible(Viewer.ofAccount(user, id => this.deps.account(id)) as Viewer & { user: SessionUser })
    return await this.deps.db.transaction(async trx => {
      const [due] = await this.due(trx, 0, userId)
      if (due === undefined) return false // another process has it, or it is no longer due
      const through = Number(due.mentions_mailed_through)
      const unread = () => trx(`${NOTIFICATIONS_TABLE} as n`).where({ 'n.user_id': userId, 'n.kind': 'mention', 'n.read': false }).where('n.id', '>', through)
      const [{ newest } = { newest: null }] = await unread().max<Array<{ newest: number | string | null }>>({ newest: 'n.id' })
      const mentions: Mention[] = visible === undefined
        ? []
        : await unread().whereRaw('?', [visible.sql]).orderBy('n.id').limit(LISTED + 1).select('n.id', 'n.addon_id', 'n.kind', 'n.data', 'n.created_at')
      let total = mentions.length
      if (visible !== undefined && mentions.length > LISTED) {
        const [row] = await unread().whereRaw('?', [visible.sql]).count<Array<{ count: number | string }>>({ count: '*' })
        total = Number(row?.count ?? 0)
      }
      await trx(USER_PREFERENCES_TABLE).where({ user_id: userId }).update({
        mentions_mailed_through: Number(newest ?? through),
        ...(mentions.length > 0 ? { mentions_mailed_at: this.options.now() } : {})
      })
      if (mentions.length === 0) return false
      await this.deps.enqueue(this.compose(due, mentions.slice(0, LISTED), total), trx)
      return true
    })
  }

  private compose (due: Due, mentions: readonly Mention[], total: number): OutgoingMail {
    const { strings, siteUrl, siteName } = this.deps
    const locale = due.mail_locale ?? 'en'
    const kind = due.email_mentions === 'daily' ? 'mentions-daily' : 'mentions'
    const token = unsubscribeToken(this.deps.unsubscribeKey, due.user_id)
    const query = `user=${due.user_id}&token=${token}`
    const items = mentions.map(mention => ({
      text: strings.t(HOST_ID, locale, 'mail.mentions.item', { by: mention.data.by ?? '', room: mention.data.room ?? '', excerpt: mention.data.excerpt ?? '' }),
      link: mention.data.shoutId === undefined ? undefined : `${siteUrl}/shouts/${mention.data.shoutId}`
    }))
    const composed = composeList(strings, locale, kind, { username: due.username, site: siteName, count: total, more: total - mentions.length }, items, {
      text: strings.t(HOST_ID, locale, 'mail.mentions.unsubscribe'),
      link: `${siteUrl}/unsubscribe#${query}`
    })
    return {
      userId: due.user_id,
      kind,
      to: due.email,
      ...composed,
      headers: {
        'List-Unsubscribe': `<${siteUrl}/api/mail/unsubscribe?${query}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click'
      }
    }
  }
}
