import type {} from '@fastify/cookie'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { preferencesRepository } from '../identity/preferences.js'

/** The cookie that keeps the language a reader chose on this browser (the language menus set it). */
export const LOCALE_COOKIE = 'shoutbox_locale'

/**
 * The language a page is drawn in: `?locale=`, the signed-in member's saved preference,
 * the language chosen on this browser, the best `Accept-Language` match, the site's
 * `defaultLocale` — the first of these we have strings for.
 */
export async function readerLocale (app: FastifyInstance, request: FastifyRequest): Promise<string> {
  await app.siteFace.current()
  const query = (request.query ?? {}) as Record<string, unknown>
  return app.i18n.resolveLocale(query.locale, request.headers['accept-language'], await savedLocale(app, request), request.cookies?.[LOCALE_COOKIE])
}

async function savedLocale (app: FastifyInstance, request: FastifyRequest): Promise<string | null> {
  const token = request.cookies?.[app.identity.sessionCookie.name]
  if (token === undefined) return null
  try {
    const user = await app.identity.sessions.resolve(token)
    return user === null ? null : (await preferencesRepository(app.db).of(user.id)).locale
  } catch {
    // Before setup, or the database away for a moment: the browser's languages decide.
    return null
  }
}
