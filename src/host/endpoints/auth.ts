import {
  Api, InvalidCredentials, LoggedInApi, Successful, TooManyRequests, Type, okAnswer, type PublicCall, type SignedInCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { clearSessionCookie } from '../identity/sessions.js'
import { checkedAttempt, signIn } from '../identity/sign-in.js'
import { SIGNED_IN_EXAMPLE, SignedInUserSchema } from '../schemas.js'

const LoginSchema = {
  body: Type.Object({
    /** A username or an e-mail address. */
    username: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 128 })
  })
}

export class Login extends Api<typeof LoginSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/login'
  readonly schema = LoginSchema
  override readonly answers = {
    ok: okAnswer({ user: SignedInUserSchema }, { user: SIGNED_IN_EXAMPLE }, 'Signed in; the session cookie is set'),
    errors: [InvalidCredentials, TooManyRequests]
  }

  async handle (call: PublicCall<typeof LoginSchema, HostContext>): Promise<Successful> {
    const { username: login, password } = call.body
    const { identity } = call.ctx
    const user = await identity.users.findByLogin(login)
    // An unknown login costs the same hash, so its answer comes no sooner.
    await checkedAttempt(identity, call.ip, login, () => user === undefined
      ? identity.passwords.verifyNobody(password, call.ip)
      : identity.passwords.verify(password, user.passwordHash, call.ip))
    // The password is proved: a hash of an older scheme (scrypt) or weaker parameters is
    // replaced by one the hasher makes now (unless the password changed meanwhile). Only
    // the hash changes: sessions stay.
    if (identity.passwords.needsRehash(user!.passwordHash)) {
      await identity.users.rehash(user!.id, user!.passwordHash, await identity.passwords.hash(password, call.ip))
    }
    return new Successful({ user: await signIn(call, user!) })
  }
}

export class Logout extends LoggedInApi<object, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/logout'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = { ok: okAnswer({}, {}, 'Signed out; the session cookie is cleared') }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    const { sessions, sessionCookie } = call.ctx.identity
    const token = call.cookies[sessionCookie.name]
    if (token !== undefined) await sessions.destroy(token)
    clearSessionCookie(call.reply, sessionCookie)
    return new Successful()
  }
}

export class Me extends LoggedInApi {
  readonly method = 'GET'
  readonly path = '/api/auth/me'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      user: Type.Object({
        ...SignedInUserSchema.properties,
        permissions: Type.Array(Type.String()),
        emailUnconfirmed: Type.Optional(Type.Literal(true, { description: 'the site asks for a confirmed address, and this account has not followed the link mailed to it yet: it may not post' }))
      }, { additionalProperties: false })
    }, { user: { ...SIGNED_IN_EXAMPLE, permissions: ['addon.shoutbox.post'] } })
  }

  async handle ({ user }: SignedInCall): Promise<Successful> {
    return new Successful({ user: { id: user.id, username: user.username, role: user.role, permissions: user.permissions, ...(user.emailUnconfirmed === true ? { emailUnconfirmed: true } : {}) } })
  }
}
