import { Api, BadRequest, Successful, TooManyRequests, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { USERS_TABLE } from '../database/tables.js'
import { InvalidVerificationToken, MailUnavailable } from '../mail/errors.js'
import { mailVerification, type Unconfirmed } from '../mail/verification.js'
import { EmailSchema } from '../schemas.js'

const ResendSchema = {
  body: Type.Object({ email: Type.Optional(EmailSchema) }, { description: 'the address to send the link to again; without it, the signed-in caller\'s own' })
}

/**
 * POST /api/auth/verify-email/resend — the link that confirms an address, mailed again to
 * the account that holds `email` and still waits for it (or, with no `email`, to the
 * signed-in caller's own). The answer is the same whether the address is known, waits,
 * or was mailed three times this hour already, and an unknown address runs the same
 * statements; each request counts against the client address (three an hour, then 429).
 */
export class ResendVerification extends Api<typeof ResendSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/verify-email/resend'
  override readonly readsSession = true
  readonly schema = ResendSchema
  override readonly answers = {
    ok: okAnswer({}, {}, 'Always the same answer: a link is mailed if the address belongs to an account waiting for one'),
    errors: [BadRequest, TooManyRequests, MailUnavailable]
  }

  async handle (call: PublicCall<typeof ResendSchema, HostContext>): Promise<Successful> {
    const { ctx, body } = call
    const own = body.email === undefined && call.user !== null && call.user.viaToken !== true ? call.user.id : undefined
    if (body.email === undefined && own === undefined) throw new BadRequest({ bodyValidationError: 'body/email is required without a session' })
    ctx.mail.requireAvailable()
    await ctx.mail.verifyQuota.take(call.ip)
    const query = ctx.db(USERS_TABLE).where({ email_unconfirmed: true, disabled: false, bot: false })
    const holder: Unconfirmed | undefined = await (own === undefined ? query.whereRaw('lower(email) = lower(?)', [body.email ?? '']) : query.where({ id: own }))
      .first('id', 'username', 'email')
    await ctx.transaction(trx => mailVerification(ctx, holder, call.locale, trx))
    return new Successful()
  }
}

const FinishSchema = {
  body: Type.Object({ token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }) })
}

/**
 * POST /api/auth/verify-email/finish — the mailed link's token: the account's address is
 * confirmed and it may post (logged CONFIRMED_EMAIL). No session needed: holding the link
 * proves the address.
 */
export class FinishVerification extends Api<typeof FinishSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/verify-email/finish'
  readonly schema = FinishSchema
  override readonly answers = {
    ok: okAnswer({}, {}, 'The address is confirmed: the account may post'),
    errors: [InvalidVerificationToken]
  }

  async handle (call: PublicCall<typeof FinishSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { identity } = ctx
    await ctx.transaction(async trx => {
      const userId = await ctx.mail.verifications.spend(call.body.token, trx)
      const account = userId === undefined ? undefined : await identity.users.find(userId, trx)
      if (account === undefined || account.disabled) throw new InvalidVerificationToken()
      await ctx.mail.verifications.spendAll(account.id, trx)
      if (await identity.users.confirmEmail(account.id, trx)) {
        await identity.sessions.accountChanged(account.id, trx)
        await ctx.activityLog.write({ type: 'CONFIRMED_EMAIL', user: account }, trx)
      }
    })
    return new Successful()
  }
}
