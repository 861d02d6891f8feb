/** The languages the site ships (its `lang/` files), English first, each with its own name for itself. */
export const LANGUAGE_NAMES = {
  en: 'English',
  tr: 'Türkçe',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  it: 'Italiano',
  nl: 'Nederlands',
  pl: 'Polski',
  ru: 'Русский',
  ja: '日本語',
  ar: 'العربية'
} as const

export type Language = keyof typeof LANGUAGE_NAMES

export const LANGUAGES = Object.keys(LANGUAGE_NAMES) as Language[]
