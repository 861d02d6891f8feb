import { EmailNotVerified, LoggedInApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { LANGUAGES } from '../site-face/languages.js'
import { LOCALE_COOKIE } from '../site-face/reader-locale.js'
import { DEFAULT_PREFERENCES, MENTION_MAILS, preferencesRepository, THEMES, type MentionMails, type Theme } from '../identity/preferences.js'
import { MailUnavailable } from '../mail/errors.js'

const fields = {
  sound: Type.Boolean({ description: 'a short sound when a notification arrives on an open page' }),
  desktopNotifications: Type.Boolean({ description: "the browser's desktop notification when one arrives (the browser asks the member once)" }),
  theme: Type.Unsafe<Theme>({ type: 'string', enum: [...THEMES], description: '"system" follows the device (prefers-color-scheme)' }),
  locale: Type.Union([Type.Null(), Type.String({ enum: [...LANGUAGES] })], { description: 'the language pages, mails and the activity feed are drawn in; null: the browser\'s, then the site\'s default' }),
  emailMentions: Type.Unsafe<MentionMails>({ type: 'string', enum: [...MENTION_MAILS], description: 'mentions still unread mailed: "batched" after 15 minutes in one mail, "daily" in a digest, or "off"; every such mail has a one-click unsubscribe' })
}

const PreferencesSchema = Type.Object(fields, { additionalProperties: false })
const ANSWER = okAnswer({ preferences: PreferencesSchema }, { preferences: { ...DEFAULT_PREFERENCES, sound: true } }, "The caller's preferences now")

/** GET /api/users/me/preferences — the caller's preferences (all off and the system's theme until they change one). */
export class ReadPreferences extends LoggedInApi<Record<string, never>, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/users/me/preferences'
  readonly schema = {}
  override readonly answers = { ok: ANSWER }

  async handle ({ ctx, user }: SignedInCall<Record<string, never>, HostContext>): Promise<Successful> {
    return new Successful({ preferences: await preferencesRepository(ctx.db).of(user.id) })
  }
}

const ChangeSchema = {
  body: Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1, description: 'the fields to change; the others stay as they are' })
}

/**
 * PUT /api/users/me/preferences — changes the fields sent (any of sound,
 * desktopNotifications, theme, locale, emailMentions) and answers them all. Mention mails
 * need mail (503 MAIL_UNAVAILABLE) and, while the site asks for it, a confirmed address
 * (403 EMAIL_NOT_VERIFIED): an address nobody proved is not sent a stream of mails.
 */
export class ChangePreferences extends LoggedInApi<typeof ChangeSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/users/me/preferences'
  readonly schema = ChangeSchema
  override readonly answers = { ok: ANSWER, errors: [MailUnavailable, EmailNotVerified] }

  async handle ({ ctx, user, body, reply, locale }: SignedInCall<typeof ChangeSchema, HostContext>): Promise<Successful> {
    if (body.emailMentions !== undefined && body.emailMentions !== 'off') {
      ctx.mail.requireAvailable()
      if (user.emailUnconfirmed === true) throw new EmailNotVerified()
    }
    const preferences = await preferencesRepository(ctx.db).change(user.id, body, body.locale ?? locale)
    // This browser follows at once, signed in or not later (the pages read the cookie too).
    if (body.locale === null) reply.clearCookie(LOCALE_COOKIE)
    else if (body.locale !== undefined) reply.setCookie(LOCALE_COOKIE, body.locale, { httpOnly: false, maxAgeSeconds: 31_536_000 })
    return new Successful({ preferences })
  }
}
