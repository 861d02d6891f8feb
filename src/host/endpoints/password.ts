import { InvalidCredentials, LoggedInApi, NotLoggedIn, Successful, TooManyRequests, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { checkedAttempt } from '../identity/sign-in.js'
import { PasswordSchema } from '../schemas.js'

const ChangePasswordSchema = {
  body: Type.Object({
    currentPassword: Type.String({ minLength: 1, maxLength: 128 }),
    newPassword: PasswordSchema
  })
}

/**
 * A signed-in user changes their own password, proving they know the current one (a
 * session alone is not enough to take the account over). Every other session of the
 * user ends, on every process; this one stays.
 */
export class ChangePassword extends LoggedInApi<typeof ChangePasswordSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/password'
  override readonly closedToTokens = true
  readonly schema = ChangePasswordSchema
  override readonly answers = {
    ok: okAnswer({}, {}, 'Changed; every other session of the user has ended'),
    errors: [InvalidCredentials, TooManyRequests, NotLoggedIn]
  }

  async handle (call: SignedInCall<typeof ChangePasswordSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { users, passwords, sessions } = ctx.identity
    const account = await users.find(call.user.id)
    if (account === undefined) throw new NotLoggedIn()
    // A stolen session must not become a way to guess the password: it is checked like a sign-in.
    await checkedAttempt(ctx.identity, call.ip, account.username, () => passwords.verify(call.body.currentPassword, account.passwordHash, call.ip))
    const passwordHash = await passwords.hash(call.body.newPassword, call.ip)
    await ctx.transaction(async trx => {
      await users.lockAccountChanges(trx)
      // Disabled or deleted while the hashes ran: the session is already over.
      const current = await users.find(account.id, trx)
      if (current === undefined || current.disabled) throw new NotLoggedIn()
      await users.update(account.id, { passwordHash }, trx)
      await sessions.endSessionsOf(account.id, call.cookies[ctx.identity.sessionCookie.name], trx)
      await ctx.activityLog.write({ type: 'CHANGED_PASSWORD', user: call.user }, trx)
    })
    return new Successful()
  }
}
