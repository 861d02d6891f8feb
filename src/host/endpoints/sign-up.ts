import { Api, Successful, TooManyRequests, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { EmailTaken, SignUpClosed, UsernameNotAllowed, UsernameTaken } from '../errors.js'
import { signIn } from '../identity/sign-in.js'
import { MailUnavailable } from '../mail/errors.js'
import { mailVerification } from '../mail/verification.js'
import { NewAccountSchema, SIGNED_IN_EXAMPLE, SignedInUserSchema } from '../schemas.js'

/** GET /api/auth/signup — public: whether visitors may sign up now (the home page and the widget ask). */
export class SignUpStatus extends Api<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/auth/signup'
  readonly schema = {}
  override readonly answers = { ok: okAnswer({ signUp: Type.Boolean() }, { signUp: true }) }

  async handle ({ ctx }: PublicCall<object, HostContext>): Promise<Successful> {
    return new Successful({ signUp: (await ctx.identity.siteSettings.read()).signUp })
  }
}

const SignUpSchema = { body: NewAccountSchema }

/**
 * POST /api/auth/signup — a visitor makes their own account, with the site's default
 * role (the member role unless chosen otherwise), and is signed in. Only while the site
 * allows it; each attempt counts against the client address before any password is
 * hashed, so a script can neither farm accounts nor keep the hashing busy. With
 * `verifyEmail`, the account may not post until it follows the link mailed to it here.
 */
export class SignUp extends Api<typeof SignUpSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/signup'
  readonly schema = SignUpSchema
  override readonly answers = {
    ok: okAnswer({ user: SignedInUserSchema }, { user: SIGNED_IN_EXAMPLE }, 'The new account, signed in'),
    errors: [SignUpClosed, TooManyRequests, UsernameNotAllowed, UsernameTaken, EmailTaken, MailUnavailable]
  }

  async handle (call: PublicCall<typeof SignUpSchema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const { identity } = ctx
    const settings = await identity.siteSettings.read()
    if (!settings.signUp) throw new SignUpClosed()
    // The link that lets a newcomer post must be able to reach them.
    if (settings.verifyEmail) ctx.mail.requireAvailable()
    await identity.signUpQuota.take(call.ip)
    if (!await ctx.addons.allowsUsername(call.body.username)) throw new UsernameNotAllowed()
    const { password, ...account } = call.body
    const roleId = await identity.siteSettings.signUpRoleId()
    const passwordHash = await identity.passwords.hash(password, call.ip)
    const user = await ctx.transaction(async trx => {
      const created = await identity.users.create({ ...account, passwordHash, roleId, emailUnconfirmed: settings.verifyEmail }, trx)
      if (settings.verifyEmail) await mailVerification(ctx, created, call.locale, trx)
      await ctx.activityLog.write({ type: 'SIGNED_UP', user: created }, trx)
      await ctx.webhooks.enqueue('member.signed_up', [{ data: { id: created.id, username: created.username, createdAt: created.createdAt } }], trx)
      return created
    })
    return new Successful({ user: await signIn(call, user) })
  }
}
