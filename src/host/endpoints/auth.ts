import {
  Api, InvalidCredentials, LoggedInApi, Successful, Type, type PublicCall, type SignedInCall
} from '../../sdk/index.js'
import { SESSION_COOKIE } from '../identity/sessions.js'
import { readCookie, signIn } from '../identity/sign-in.js'
import type { Platform } from '../platform.js'

const LoginSchema = {
  body: Type.Object({
    /** A username or an e-mail address. */
    username: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 128 })
  })
}

export class Login extends Api<typeof LoginSchema> {
  readonly method = 'POST'
  readonly path = '/api/auth/login'
  readonly schema = LoginSchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: PublicCall<typeof LoginSchema>): Promise<Successful> {
    const { username: login, password } = call.body
    const { throttle, users, hasher } = this.platform
    await throttle.assertAllowed(call.ip, login)
    const user = await users.findByLogin(login)
    const valid = user === undefined ? await hasher.verifyNobody(password) : await hasher.verify(password, user.passwordHash)
    if (user === undefined || !valid) {
      await throttle.recordFailure(call.ip, login)
      throw new InvalidCredentials()
    }
    await throttle.recordSuccess(login)
    return new Successful({ user: await signIn(this.platform, call, user) })
  }
}

export class Logout extends LoggedInApi {
  readonly method = 'POST'
  readonly path = '/api/auth/logout'
  readonly schema = {}

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall): Promise<Successful> {
    const token = readCookie(call.headers.cookie, SESSION_COOKIE)
    if (token !== undefined) await this.platform.sessions.destroy(token)
    call.reply.clearCookie(SESSION_COOKIE)
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
