import fp from 'fastify-plugin'
import { emailChangesRepository, type EmailChangesRepository } from '../mail/email-changes.js'
import { emailVerificationsRepository, type EmailVerificationsRepository } from '../mail/email-verifications.js'
import { MailUnavailable } from '../mail/errors.js'
import { mailOutboxRepository, type MailOutboxRepository, type OutgoingMail } from '../mail/outbox.js'
import { passwordResetsRepository, type PasswordResetsRepository } from '../mail/password-resets.js'
import { MentionMailer } from '../mail/mention-mails.js'
import { MailSender, type MailSenderOptions } from '../mail/sender.js'
import { mailTransport, withoutPassword } from '../mail/transport.js'
import type { Transaction } from '../../sdk/index.js'
import { AddressQuota } from '../identity/address-quota.js'

export interface MailOptions {
  readonly smtpUrl: string | undefined
  readonly mailFrom: string | undefined
  readonly publicUrl: string | undefined
  readonly dev: boolean
  readonly port: number
  readonly sender?: MailSenderOptions
}

/** What the panel shows of the mail settings: never SMTP_URL's password. */
export interface MailSettings {
  readonly transport: 'smtp' | 'log' | 'none'
  readonly server: string | null
  readonly from: string
}

/** The host's mail: the outbox features write to, this process's sender, and what links are made from. */
export interface Mail {
  readonly available: boolean
  readonly settings: MailSettings
  /** The site's origin, which every link in a mail starts with. */
  readonly siteUrl: string
  /** The site's name in mails: PUBLIC_URL's host. */
  readonly siteName: string
  readonly outbox: MailOutboxRepository
  readonly resets: PasswordResetsRepository
  readonly emailChanges: EmailChangesRepository
  readonly verifications: EmailVerificationsRepository
  readonly sender: MailSender
  /** This process's mention mailer (members who chose `emailMentions`). */
  readonly mentions: MentionMailer
  /** What an unsubscribe link is signed with (derived from the address secret). */
  readonly unsubscribeKey: Buffer
  /** Reset requests per client address: three an hour. */
  readonly resetQuota: AddressQuota
  /** Requests for the verification link again, per client address: three an hour. */
  readonly verifyQuota: AddressQuota
  /** Throws MAIL_UNAVAILABLE when mail cannot go anywhere. */
  requireAvailable (): void
  /** Writes `mail` inside `trx`; this process's sender looks at once when `trx` commits. */
  enqueue (mail: OutgoingMail, trx: Transaction): Promise<string>
}

declare module 'fastify' {
  interface FastifyInstance {
    mail: Mail
  }
}

/**
 * Mail through SMTP_URL (or the log with `--dev`). The sender starts once the host's
 * migrations ran (the outbox's table among them) and stops before the database closes;
 * a try it abandons is taken again by a process still running, or by this one restarted.
 */
export const mailPlugin = fp<MailOptions>(async (app, options) => {
  const log = app.log.child({ part: 'mail' })
  const transport = mailTransport(options.smtpUrl, options.dev, log)
  const siteUrl = options.publicUrl ?? `http://localhost:${options.port}`
  const siteName = new URL(siteUrl).host
  const from = options.mailFrom ?? `Shoutbox <no-reply@${new URL(siteUrl).hostname}>`
  const sender = new MailSender(app.db, transport, from, log, options.sender)
  const outbox = mailOutboxRepository(app.db)
  const enqueue = async (mail: OutgoingMail, trx: Transaction): Promise<string> => {
    const id = await outbox.enqueue(mail, trx)
    void trx.executionPromise.then(() => sender.kick(), () => {})
    return id
  }
  const unsubscribeKey = app.identity.addresses.signingKey('unsubscribe mention mails')
  const mentions = new MentionMailer({
    db: app.db,
    strings: app.i18n,
    log,
    siteUrl,
    siteName,
    unsubscribeKey,
    account: async (id, trx) => await app.identity.users.sessionUser(id, trx, { active: true }),
    visible: async viewer => await app.addons.visibleNotifications(viewer),
    enqueue,
    started: () => app.addons.started
  }, { pollMs: options.sender?.mentionsPollMs ?? 60_000, firstRoundMs: options.sender?.mentionsFirstRoundMs ?? 5_000, now: options.sender?.now ?? Date.now })
  app.decorate('mail', {
    available: transport.available,
    settings: { transport: transport.kind, server: options.smtpUrl === undefined ? null : withoutPassword(options.smtpUrl), from },
    siteUrl,
    siteName,
    outbox,
    resets: passwordResetsRepository(app.db),
    emailChanges: emailChangesRepository(app.db),
    verifications: emailVerificationsRepository(app.db),
    sender,
    mentions,
    unsubscribeKey,
    resetQuota: new AddressQuota(app.db, 'password-reset', { limit: 3, windowMs: 60 * 60_000 }, app.identity.addresses),
    verifyQuota: new AddressQuota(app.db, 'verify-email', { limit: 3, windowMs: 60 * 60_000 }, app.identity.addresses),
    requireAvailable () {
      if (!transport.available) throw new MailUnavailable()
    },
    enqueue
  })
  app.addHook('onReady', async () => {
    sender.start()
    if (transport.available) mentions.start()
  })
  app.addHook('preClose', async () => {
    await mentions.stop()
    await sender.stop()
  })
}, { name: 'shoutbox-mail', dependencies: ['shoutbox-database', 'shoutbox-identity', 'shoutbox-i18n'] })
