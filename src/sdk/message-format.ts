/** `{name, plural, <forms>}` (a form's text may hold `{name}` placeholders, one level deep), or `{name}`. */
const PIECE = /\{(\w+),\s*plural,\s*((?:[=\w]+\s*\{(?:[^{}]|\{\w+\})*\}\s*)+)\}|\{(\w+)\}/g
const FORM = /([=\w]+)\s*\{((?:[^{}]|\{\w+\})*)\}/g
/** In a chosen form: `#`, the number, or a `{name}` placeholder. */
const IN_FORM = /#|\{(\w+)\}/g

/**
 * The strings' one template language, on the server and in the browser alike:
 *
 * - `{name}` is replaced with the value's text; a placeholder without a value stays.
 * - `{name, plural, one {# second} other {# seconds}}` chooses the form the locale's
 *   plural rules (`Intl.PluralRules`) give for the number, `#` standing for it (written
 *   the locale's way: 1,000 in English); the value is a number or plain digits. The ICU
 *   MessageFormat syntax translators know. `other` is required; the categories a
 *   language does not use are left out (Turkish writes `{seconds} saniye` for any number).
 *   A form may hold `{name}` placeholders of its own.
 */
export function formatMessage (template: string, values: Readonly<Record<string, unknown>>, locale: string): string {
  // One pass over the template: what a value brings in is never read as a template.
  return template.replace(PIECE, (whole, pluralName: string | undefined, forms: string | undefined, name: string | undefined) => {
    if (pluralName === undefined) return placeholder(whole, values[name!])
    const value = values[pluralName]
    if (value === undefined || value === null) return whole
    const count = countOf(value)
    const rules = rulesFor(locale)
    const chosen = pluralForms(forms!)
    const form = (count === undefined ? undefined : chosen.get(`=${count}`) ?? chosen.get(rules.plural.select(count))) ?? chosen.get('other')
    if (form === undefined) return whole
    const shown = count === undefined ? String(value) : rules.number.format(count)
    return form.replace(IN_FORM, (piece, inner: string | undefined) => inner === undefined ? shown : placeholder(piece, values[inner]))
  })
}

function placeholder (whole: string, value: unknown): string {
  return value === undefined || value === null ? whole : String(value)
}

/** A number, or text that writes one plainly ("3", "-1.5", as Retry-After is); anything else is no count. */
function countOf (value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : undefined
}

function pluralForms (forms: string): Map<string, string> {
  return new Map([...forms.matchAll(FORM)].map(([, category, text]) => [category!, text!]))
}

interface LocaleRules {
  readonly plural: Intl.PluralRules
  readonly number: Intl.NumberFormat
}

/** One entry a locale this runtime supports; any other locale is read as English. */
const byLocale = new Map<string, LocaleRules>()

function rulesFor (locale: string): LocaleRules {
  let supported = 'en'
  try {
    supported = Intl.PluralRules.supportedLocalesOf(locale)[0] ?? 'en'
  } catch {
    // not a well-formed locale
  }
  let found = byLocale.get(supported)
  if (found === undefined) {
    found = { plural: new Intl.PluralRules(supported), number: new Intl.NumberFormat(supported) }
    byLocale.set(supported, found)
  }
  return found
}
