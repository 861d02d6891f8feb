import { InvalidCredentials, UserSignedIn, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import type { Identity } from '../plugins/identity.js'
import { SESSION_LIFETIME_MS } from './sessions.js'

/**
 * Starts a new session for `user` and sets its cookie. Any session the request already
 * carried is ended first, so a token planted before sign-in is worthless after it.
 */
export async function signIn (call: PublicCall<object, HostContext>, user: { id: number, username: string, roleId: number }) {
  const { identity, events } = call.ctx
  const cookie = identity.sessionCookie
  const previous = call.cookies[cookie.name]
  if (previous !== undefined) await identity.sessions.destroy(previous)
  const { token } = await identity.sessions.create(user.id)
  call.reply.setCookie(cookie.name, token, {
    maxAgeSeconds: SESSION_LIFETIME_MS / 1000, httpOnly: true, sameSite: 'lax', ...(cookie.alwaysSecure ? { secure: true } : {})
  })
  events.emit(UserSignedIn, { user: { id: user.id, username: user.username }, ip: call.ip })
  const role = await identity.roles.find(user.roleId)
  return { id: user.id, username: user.username, role: { id: user.roleId, name: role?.name ?? '' } }
}

/**
 * Checks a password the way a sign-in does: the attempt is counted (or refused with 429)
 * before any hash, so a refused attempt costs none; an attempt never judged (hashing
 * full: 503; database lost) does not count against the caller; a wrong password throws
 * InvalidCredentials. `check` runs the hash and says whether it matched.
 */
export async function checkedAttempt (identity: Identity, ip: string, login: string, check: () => Promise<boolean>): Promise<void> {
  const attempt = await identity.signInThrottle.attempt(ip, login)
  let valid: boolean
  try {
    valid = await check()
  } catch (error) {
    await attempt.withdraw().catch(() => {})
    throw error
  }
  if (!valid) throw new InvalidCredentials()
  await attempt.succeeded()
}
