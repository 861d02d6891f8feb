import { DELETED_USER_NAME, InvalidCredentials, LoggedInApi, NotLoggedIn, Successful, TooManyRequests, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { LastAdmin } from '../errors.js'
import { eraseAccount } from '../identity/erasure.js'
import { clearSessionCookie } from '../identity/sessions.js'
import { checkedAttempt } from '../identity/sign-in.js'

const DeleteOwnSchema = {
  body: Type.Object({ password: Type.String({ minLength: 1, maxLength: 128, description: 'the current password: a session alone does not delete an account' }) }, { additionalProperties: false })
}

/**
 * DELETE /api/users/me — a member deletes their own account, proving they know the
 * password (checked like a sign-in, and counted). What becomes of their shouts, the site's
 * `erasure` says; sessions, API tokens, notifications, reactions, ignore lists and
 * preferences go; the username is never taken again. The last active administrator
 * cannot (409 LAST_ADMIN). Logged DELETED_OWN_ACCOUNT.
 */
export class DeleteOwnAccount extends LoggedInApi<typeof DeleteOwnSchema, HostContext> {
  readonly method = 'DELETE'
  readonly path = '/api/users/me'
  readonly schema = DeleteOwnSchema
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({}, {}, 'The account is gone; the session cookie is cleared'),
    errors: [InvalidCredentials, TooManyRequests, LastAdmin, NotLoggedIn]
  }

  async handle (call: SignedInCall<typeof DeleteOwnSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { identity } = ctx
    const account = await identity.users.find(call.user.id)
    if (account === undefined) throw new NotLoggedIn()
    await checkedAttempt(identity, call.ip, account.username, () => identity.passwords.verify(call.body.password, account.passwordHash, call.ip))
    await ctx.transaction(async trx => {
      await identity.users.lockAccountChanges(trx)
      const current = await identity.users.find(account.id, trx)
      if (current === undefined || current.disabled) throw new NotLoggedIn()
      await identity.users.refuseLastAdmin(current, trx)
      await eraseAccount(ctx, account.id, account.username, trx)
      await ctx.activityLog.write({ type: 'DELETED_OWN_ACCOUNT', user: null, details: { user: DELETED_USER_NAME, targetUserId: account.id, variant: 'erased' } }, trx)
    })
    clearSessionCookie(call.reply, identity.sessionCookie)
    return new Successful()
  }
}
