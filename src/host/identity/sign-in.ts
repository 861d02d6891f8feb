import { UserSignedIn, type PublicCall } from '../../sdk/index.js'
import type { Platform } from '../platform.js'
import { SESSION_COOKIE, SESSION_LIFETIME_MS } from './sessions.js'

/**
 * Starts a new session for `user` and sets its cookie. Any session the request already
 * carried is ended first, so a token planted before sign-in is worthless after it.
 */
export async function signIn (platform: Platform, call: PublicCall, user: { id: number, username: string, roleId: number }) {
  const previous = readCookie(call.headers.cookie, SESSION_COOKIE)
  if (previous !== undefined) await platform.sessions.destroy(previous)
  const { token } = await platform.sessions.create(user.id)
  call.reply.setCookie(SESSION_COOKIE, token, { maxAgeSeconds: SESSION_LIFETIME_MS / 1000, httpOnly: true, sameSite: 'lax' })
  platform.events.emit(UserSignedIn.name, { user: { id: user.id, username: user.username }, ip: call.ip })
  const role = await platform.roles.find(user.roleId)
  return { id: user.id, username: user.username, role: { id: user.roleId, name: role?.name ?? '' } }
}

export function readCookie (header: string | string[] | undefined, name: string): string | undefined {
  if (typeof header !== 'string') return undefined
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim()
  }
  return undefined
}
