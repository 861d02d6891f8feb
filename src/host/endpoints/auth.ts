import {
  Api, InvalidCredentials, LoggedInApi, Successful, Type, type PublicCall, type SignedInCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { clearSessionCookie } from '../identity/sessions.js'
import { signIn } from '../identity/sign-in.js'

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

  async handle (call: PublicCall<typeof LoginSchema, HostContext>): Promise<Successful> {
    const { username: login, password } = call.body
    const { signInThrottle, users, passwords } = call.ctx.identity
    // Counted (or refused with 429) before any hash: a refused attempt costs none.
    const attempt = await signInThrottle.attempt(call.ip, login)
    let user
    try {
      user = await users.findByLogin(login)
      // An unknown login costs the same hash, so its answer comes no sooner.
      const valid = user === undefined ? await passwords.verifyNobody(password) : await passwords.verify(password, user.passwordHash)
      if (!valid) user = undefined
    } catch (error) {
      // Not judged (hashing full: 503; database lost): the attempt does not count against the caller.
      await attempt.withdraw().catch(() => {})
      throw error
    }
    if (user === undefined) throw new InvalidCredentials()
    await attempt.succeeded()
    return new Successful({ user: await signIn(call, user) })
  }
}

export class Logout extends LoggedInApi<object, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/auth/logout'
  readonly schema = {}

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

  async handle ({ user }: SignedInCall): Promise<Successful> {
    return new Successful({ user: { id: user.id, username: user.username, role: user.role, permissions: user.permissions } })
  }
}
