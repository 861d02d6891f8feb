import { pageLocale, pageStrings, translator, type ApiAnswer } from '../../../sdk/ui.js'
import { LANGUAGE_NAMES } from '../../site-face/languages.js'
import en from '../../lang/en.json' with { type: 'json' }

/** Every language the site ships, each in its own words, for the language menus. */
export const LOCALES: ReadonlyArray<[string, string]> = Object.entries(LANGUAGE_NAMES)

/** The cookie the server reads for a reader's choice (site-face/reader-locale.ts's LOCALE_COOKIE). */
const COOKIE = 'shoutbox_locale'

/** The language the server drew this page in (the reader's preference, their browser's, the site's). */
export function chosenLocale (): string {
  return pageLocale()
}

/** Keeps `locale` as this browser's choice; the page is drawn again in it (the server carries its strings). */
export function chooseLocale (locale: string): void {
  document.cookie = `${COOKIE}=${encodeURIComponent(locale)}; path=/; max-age=31536000; samesite=lax`
  location.reload()
}

export type T = ReturnType<typeof translator>

/** The host's strings: bundled English, and the page's language as the server carried it in. */
export function hostStrings (locale: string): T {
  const carried = pageStrings('host')
  return translator(carried?.locale === locale ? { en, [locale]: carried.strings } : { en }, locale)
}

/**
 * A sentence for an error answer: the addon's string for the code if it has one, else
 * the host's, with the answer's extra fields as placeholders.
 */
export function errorText (t: T, answer: ApiAnswer, addon?: (key: string, values?: Record<string, unknown>) => string | undefined): string {
  if (answer.body === undefined) return t('errors.NETWORK')
  const code = typeof answer.body.error === 'string' ? answer.body.error : 'UNKNOWN'
  const values = { ...answer.body, code, seconds: answer.body.retryAfter ?? '60' }
  const sentence = addon?.(`errors.${code}`, values) ?? (t.has(`errors.${code}`) ? t(`errors.${code}`, values) : t('errors.UNKNOWN', values))
  // What the server says was wrong: the schema's words, or the endpoint's own reason ("url must be https://…").
  const reason = typeof answer.body.bodyValidationError === 'string' ? answer.body.bodyValidationError : answer.body.reason
  const detail = code === 'BAD_REQUEST' && typeof reason === 'string' ? ` (${reason})` : ''
  return sentence + detail
}
