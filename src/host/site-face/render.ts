import type { FastifyInstance, FastifyRequest } from 'fastify'
import { HOST_ID } from '../addons/loader.js'
import { directionOf } from '../services/i18n.js'
import { readerLocale } from './reader-locale.js'

/** The style sheet every page links after its own: the site's accent (`/theme/face.css`). */
export const FACE_STYLESHEET = '/theme/face.css'

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, c => escapes[c]!)

/** JSON that stays JSON inside a `<script>`: no `</script>`, no `<!--`, no line separators. */
const jsonInScript = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')

/**
 * A theme or panel page, drawn for one reader: `lang` and `dir` for their language, the
 * site's name, the home page's welcome, and every owner's strings in that language, carried
 * to the page's scripts as `<script type="application/json" data-strings="owner">` (data, not
 * script: the pages' policy runs none inline). Placeholders: `{{lang}}`, `{{dir}}`,
 * `{{siteName}}`, `{{logo}}`, `{{welcomeTitle}}`, `{{welcomeText}}`, `{{head}}` and `{{t:<host key>}}`.
 */
export async function renderPage (app: FastifyInstance, request: FastifyRequest, template: string): Promise<string> {
  const locale = await readerLocale(app, request)
  const { face } = await app.siteFace.current()
  const t = (key: string): string => app.i18n.t(HOST_ID, locale, key)
  const siteName = face.siteName ?? t('site.defaultName')
  const welcome = face.welcomeText ?? t('site.welcome.text')
  const head = [
    `<link rel="stylesheet" href="${FACE_STYLESHEET}">`,
    ...app.i18n.owners().map(owner => {
      const strings = app.i18n.catalogue(owner, locale)
      return strings === undefined || locale === 'en' ? '' : `<script type="application/json" data-strings="${escapeHtml(owner)}" data-locale="${escapeHtml(locale)}">${jsonInScript(strings)}</script>`
    })
  ].filter(part => part !== '').join('\n  ')
  const values: Record<string, string> = {
    lang: escapeHtml(locale),
    dir: directionOf(locale),
    siteName: escapeHtml(siteName),
    // The logo stands before the name, which says what it is (so the picture itself is decorative).
    logo: face.logo === null ? '' : `<img class="brand-logo" src="${escapeHtml(face.logo)}" alt="">`,
    welcomeTitle: escapeHtml(face.welcomeTitle ?? t('site.welcome.title')),
    welcomeText: welcome.split(/\n\s*\n/).map(paragraph => `<p>${escapeHtml(paragraph.trim())}</p>`).join('\n      '),
    head
  }
  return template.replace(/\{\{(t:)?([\w.-]+)\}\}/g, (whole, isKey: string | undefined, name: string) =>
    isKey !== undefined ? escapeHtml(t(name)) : values[name] ?? whole)
}
