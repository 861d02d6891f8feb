import { NoPermission, NotLoggedIn, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { facesOf } from '../site-face/face.js'
import type { HostContext } from '../addons/context.js'
import { MailUnavailable } from '../mail/errors.js'
import { composeMail } from '../mail/templates.js'

const MailEntrySchema = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: '`password-reset`, `test`, …' }),
  to: Type.String(),
  subject: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()], { description: "the mail server's last refusal; null when none" }),
  nextAttemptAt: Type.Union([Type.Integer(), Type.Null()], { description: 'when it is tried next; null once sent or failed' }),
  createdAt: Type.Integer()
})
const SettingsSchema = Type.Object({
  available: Type.Boolean({ description: 'false: no SMTP_URL and not --dev; what needs mail answers MAIL_UNAVAILABLE' }),
  transport: Type.Union([Type.Literal('smtp'), Type.Literal('log'), Type.Literal('none')]),
  server: Type.Union([Type.String(), Type.Null()], { description: 'SMTP_URL with its password shown as ***' }),
  from: Type.String()
})
const ENTRY_EXAMPLE = {
  id: '9e2b7c4a-1f3d-4b8e-a6c5-3d0f2e1b7a94', kind: 'test', to: 'admin@example.org', subject: 'A test mail from shouts.example.org',
  status: 'sent' as const, attempts: 1, lastError: null, nextAttemptAt: null, createdAt: 1795000100000
}

/** GET /api/panel/mail — the mail settings (never SMTP_URL's password) and the outbox's last 100 mails (never their bodies). */
export class MailOverview extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/mail'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ settings: SettingsSchema, mails: Type.Array(MailEntrySchema) }, {
      settings: { available: true, transport: 'smtp', server: 'smtp://shouts:***@mail.example.org:587', from: 'Shoutbox <no-reply@shouts.example.org>' },
      mails: [ENTRY_EXAMPLE]
    }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    const { mail } = call.ctx
    return new Successful({ settings: { available: mail.available, ...mail.settings }, mails: await mail.outbox.list() })
  }
}

/** POST /api/panel/mail/test — a test mail to the caller's own address, through the outbox like any other. */
export class SendTestMail extends PanelApi<object, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/mail/test'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ mail: MailEntrySchema }, { mail: { ...ENTRY_EXAMPLE, status: 'pending' as const, attempts: 0, nextAttemptAt: 1795000100000 } }, 'Queued: the outbox shows when it is sent'),
    errors: [NoPermission, MailUnavailable]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    const { ctx } = call
    ctx.mail.requireAvailable()
    const account = await ctx.identity.users.find(call.user.id)
    if (account === undefined) throw new NotLoggedIn()
    const composed = composeMail(ctx.strings, call.locale, 'test', { site: (await facesOf(ctx.db).current()).face.siteName ?? ctx.mail.siteName })
    const id = await ctx.transaction(async trx => {
      const queued = await ctx.mail.enqueue({ userId: account.id, kind: 'test', to: account.email, ...composed }, trx)
      await ctx.activityLog.write({ type: 'SENT_TEST_MAIL', user: call.user }, trx)
      return queued
    })
    return new Successful({ mail: await ctx.mail.outbox.find(id) })
  }
}
