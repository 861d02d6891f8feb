import { Api, Successful, TooManyRequests, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { facesOf } from '../site-face/face.js'
import type { HostContext } from '../addons/context.js'
import { API_TOKENS_TABLE, USERS_TABLE } from '../database/tables.js'
import { signIn } from '../identity/sign-in.js'
import { InvalidResetToken, MailUnavailable } from '../mail/errors.js'
import { RESETS_PER_ACCOUNT_PER_HOUR, newResetToken } from '../mail/password-resets.js'
import { composeMail } from '../mail/templates.js'
import { EmailSchema, PasswordSchema, SIGNED_IN_EXAMPLE, SignedInUserSchema } from '../schemas.js'

const AskSchema = {
  body: Type.Object({ email: EmailSchema })
}

/** Who an address belongs to, if anyone may be sent a reset: a bot signs in with no password, a disabled account not at all. */
interface Holder { id: number, username: string, email: string, disabled: boolean, bot: boolean }

/**
 * POST /api/auth/password-reset — a link to choose a new password, mailed to the account
 * that holds `email`. The answer is the same whether it is known: an unknown address runs
 * the same lookups, token and mail making, only nothing is written; a known one past its
 * three mails an hour is answered alike too. Each request counts against the client
 * address (three an hour), so neither guessing addresses nor flooding inboxes scales.
 */
export class AskPasswordReset extends Api<typeof AskSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/password-reset'
  readonly schema = AskSchema
  override readonly answers = {
    ok: okAnswer({}, {}, 'Always the same answer: a link is mailed if the address belongs to an account'),
    errors: [TooManyRequests, MailUnavailable]
  }

  async handle (call: PublicCall<typeof AskSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { mail, identity } = ctx
    mail.requireAvailable()
    await mail.resetQuota.take(call.ip)
    const found: Holder | undefined = await ctx.db(USERS_TABLE).whereRaw('lower(email) = lower(?)', [call.body.email])
      .first('id', 'username', 'email', 'disabled', 'bot')
    const holder = found === undefined || found.disabled || found.bot ? undefined : found
    const { token, hash } = newResetToken()
    const composed = composeMail(ctx.strings, call.locale, 'password-reset',
      { username: holder?.username ?? call.body.email, site: (await facesOf(ctx.db).current()).face.siteName ?? mail.siteName }, `${mail.siteUrl}/password-reset#token=${token}`)
    await ctx.transaction(async trx => {
      // The same statements for an address no one holds (user 0 matches no row): its answer takes as long.
      await identity.users.lock(holder?.id ?? 0, trx)
      const recent = await mail.resets.countLastHour(holder?.id ?? 0, trx)
      if (holder === undefined || recent >= RESETS_PER_ACCOUNT_PER_HOUR) return
      await mail.resets.replace(holder.id, hash, trx)
      await mail.enqueue({ userId: holder.id, kind: 'password-reset', to: holder.email, ...composed }, trx)
    })
    return new Successful()
  }
}

const FinishSchema = {
  body: Type.Object({
    token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }),
    password: PasswordSchema
  })
}

/**
 * POST /api/auth/password-reset/finish — the link's token and a new password: the token
 * is spent (it and any other of the user's), the password set, every session and API
 * token of the user ended on every process, PASSWORD_RESET logged; then this browser is
 * signed in. The password is hashed only once the token is known to be good, so wrong
 * tokens cost no hashing.
 */
export class FinishPasswordReset extends Api<typeof FinishSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/password-reset/finish'
  readonly schema = FinishSchema
  override readonly answers = {
    ok: okAnswer({ user: SignedInUserSchema }, { user: SIGNED_IN_EXAMPLE }, 'The password is set; every session and token of the user has ended, and this browser is signed in'),
    errors: [InvalidResetToken, TooManyRequests]
  }

  async handle (call: PublicCall<typeof FinishSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { mail, identity } = ctx
    if (!await mail.resets.usable(call.body.token)) throw new InvalidResetToken()
    const passwordHash = await identity.passwords.hash(call.body.password, call.ip)
    const user = await ctx.transaction(async trx => {
      await identity.users.lockAccountChanges(trx)
      // Spent in the statement that finds it: of two requests with one token, one wins.
      const userId = await mail.resets.spend(call.body.token, trx)
      const account = userId === undefined ? undefined : await identity.users.find(userId, trx)
      if (account === undefined || account.disabled || account.bot) throw new InvalidResetToken()
      await identity.users.update(account.id, { passwordHash }, trx)
      await trx(API_TOKENS_TABLE).where({ user_id: account.id }).delete()
      await identity.sessions.endSessionsOf(account.id, undefined, trx)
      await ctx.activityLog.write({ type: 'PASSWORD_RESET', user: account }, trx)
      // The link reached the account's address: it is confirmed (its sessions ended above).
      await identity.users.confirmEmail(account.id, trx)
      return account
    })
    return new Successful({ user: await signIn(call, user) })
  }
}
