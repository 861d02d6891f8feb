import { pageStrings, translator } from '../../sdk/ui.js'
import en from '../../../lang/en.json' with { type: 'json' }

/** Strings fetched for a page the server did not draw (the embed, on another site). */
let fetched: { locale: string, strings: Record<string, string> } | undefined

/** Gives the addon's strings in `locale` to a page that has none carried in (the embed fetches them). */
export function useStrings (locale: string, strings: Record<string, string>): void {
  fetched = { locale, strings }
}

/**
 * The addon's strings in `locale`: its English, bundled in, and the reader's language as
 * the server carried it into the page (its lang/ files; `pageStrings`), or as fetched.
 */
export function shoutboxStrings (locale: string) {
  const carried = pageStrings('shoutbox') ?? fetched
  return translator(carried?.locale === locale ? { en, [locale]: carried.strings } : { en }, locale)
}
