import { Api, InvalidCredentials, LoggedInApi, NotLoggedIn, Successful, TooManyRequests, Type, okAnswer, type PublicCall, type SignedInCall } from '../../sdk/index.js'
import { facesOf } from '../site-face/face.js'
import type { HostContext } from '../addons/context.js'
import { PG_UNIQUE_VIOLATION, isPgError } from '../database/errors.js'
import { USERS_TABLE } from '../database/tables.js'
import { EmailTaken } from '../errors.js'
import { checkedAttempt } from '../identity/sign-in.js'
import { EMAIL_CHANGES_PER_HOUR } from '../mail/email-changes.js'
import { InvalidEmailChangeToken, MailUnavailable } from '../mail/errors.js'
import { newResetToken } from '../mail/password-resets.js'
import { composeMail } from '../mail/templates.js'
import { EmailSchema } from '../schemas.js'

const ChangeSchema = {
  body: Type.Object({ email: EmailSchema, password: Type.String({ minLength: 1, maxLength: 128 }) })
}

const taken = async (ctx: HostContext, email: string, userId: number, trx = ctx.db): Promise<boolean> =>
  await trx(USERS_TABLE).whereRaw('lower(email) = lower(?)', [email]).whereNot({ id: userId }).first('id') !== undefined

/**
 * PUT /api/users/me/email — a member asks to change their address, proving they know
 * their password (checked like a sign-in). A link goes to the new address and a notice to
 * the old one; the address changes only when the link is followed. Three an hour.
 */
export class ChangeEmail extends LoggedInApi<typeof ChangeSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/users/me/email'
  override readonly closedToTokens = true
  readonly schema = ChangeSchema
  override readonly answers = {
    ok: okAnswer({}, {}, 'A link is mailed to the new address, a notice to the old; the address changes when the link is followed'),
    errors: [InvalidCredentials, EmailTaken, TooManyRequests, MailUnavailable, NotLoggedIn]
  }

  async handle (call: SignedInCall<typeof ChangeSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { mail, identity } = ctx
    mail.requireAvailable()
    const account = await identity.users.find(call.user.id)
    if (account === undefined) throw new NotLoggedIn()
    await checkedAttempt(identity, call.ip, account.username, () => identity.passwords.verify(call.body.password, account.passwordHash, call.ip))
    if (await taken(ctx, call.body.email, account.id)) throw new EmailTaken()
    const { token, hash } = newResetToken()
    const values = { username: account.username, site: (await facesOf(ctx.db).current()).face.siteName ?? mail.siteName }
    const link = composeMail(ctx.strings, call.locale, 'email-change', values, `${mail.siteUrl}/email-change#token=${token}`)
    const notice = composeMail(ctx.strings, call.locale, 'email-change-notice', values)
    await ctx.transaction(async trx => {
      await identity.users.lock(account.id, trx)
      if (await mail.emailChanges.countLastHour(account.id, trx) >= EMAIL_CHANGES_PER_HOUR) throw new TooManyRequests(60 * 60)
      await mail.emailChanges.replace(account.id, call.body.email, hash, trx)
      await mail.enqueue({ userId: account.id, kind: 'email-change', to: call.body.email, ...link }, trx)
      await mail.enqueue({ userId: account.id, kind: 'email-change-notice', to: account.email, ...notice }, trx)
    })
    return new Successful()
  }
}

const ConfirmSchema = {
  body: Type.Object({ token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }) })
}

/**
 * POST /api/auth/email-change/finish — the link's token: the address it was mailed to
 * becomes the account's (logged CHANGED_EMAIL). No session needed: the link may be opened
 * anywhere; holding it proves the new address is theirs.
 */
export class FinishEmailChange extends Api<typeof ConfirmSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/email-change/finish'
  readonly schema = ConfirmSchema
  override readonly answers = {
    ok: okAnswer({ email: EmailSchema }, { email: 'ada@example.org' }, 'The account\'s address is now the one the link was mailed to'),
    errors: [InvalidEmailChangeToken, EmailTaken]
  }

  async handle (call: PublicCall<typeof ConfirmSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const email = await ctx.transaction(async trx => {
      await ctx.identity.users.lockAccountChanges(trx)
      const change = await ctx.mail.emailChanges.spend(call.body.token, trx)
      const account = change === undefined ? undefined : await ctx.identity.users.find(change.userId, trx)
      if (change === undefined || account === undefined || account.disabled) throw new InvalidEmailChangeToken()
      if (await taken(ctx, change.newEmail, account.id, trx)) throw new EmailTaken()
      try {
        await trx(USERS_TABLE).where({ id: account.id }).update({ email: change.newEmail })
      } catch (error) {
        if (isPgError(error, PG_UNIQUE_VIOLATION)) throw new EmailTaken()
        throw error
      }
      await ctx.activityLog.write({ type: 'CHANGED_EMAIL', user: account }, trx)
      // The link reached the new address: it is confirmed, and links mailed to the old one are void.
      await ctx.mail.verifications.spendAll(account.id, trx)
      if (await ctx.identity.users.confirmEmail(account.id, trx)) await ctx.identity.sessions.accountChanged(account.id, trx)
      return change.newEmail
    })
    return new Successful({ email })
  }
}
