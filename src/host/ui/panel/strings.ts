import { translator, type ApiAnswer } from '../../../sdk/ui.js'
import en from '../../lang/en.json' with { type: 'json' }
import tr from '../../lang/tr.json' with { type: 'json' }

export const LOCALES: ReadonlyArray<[string, string]> = [['en', 'English'], ['tr', 'Türkçe']]
const KEY = 'shoutbox.locale'

export function chosenLocale (): string {
  const saved = localStorage.getItem(KEY)
  if (saved !== null && LOCALES.some(([code]) => code === saved)) return saved
  return navigator.language.toLowerCase().startsWith('tr') ? 'tr' : 'en'
}

export function chooseLocale (locale: string): void {
  localStorage.setItem(KEY, locale)
}

export type T = ReturnType<typeof translator>

export function hostStrings (locale: string): T {
  return translator({ en, tr }, locale)
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
