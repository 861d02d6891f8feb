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
 *   plural rules (`Intl.PluralRules`) give for the number, `#` standing for it: the ICU
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
    const chosen = pluralForms(forms!)
    const count = Number(value)
    const form = (Number.isFinite(count) ? chosen.get(`=${count}`) ?? chosen.get(rules(locale).select(count)) : undefined) ?? chosen.get('other')
    if (form === undefined) return whole
    return form.replace(IN_FORM, (piece, inner: string | undefined) => inner === undefined ? String(value) : placeholder(piece, values[inner]))
  })
}

function placeholder (whole: string, value: unknown): string {
  return value === undefined || value === null ? whole : String(value)
}

function pluralForms (forms: string): Map<string, string> {
  return new Map([...forms.matchAll(FORM)].map(([, category, text]) => [category!, text!]))
}

const pluralRules = new Map<string, Intl.PluralRules>()

function rules (locale: string): Intl.PluralRules {
  let found = pluralRules.get(locale)
  if (found === undefined) {
    try {
      found = new Intl.PluralRules(locale)
    } catch {
      found = new Intl.PluralRules('en')
    }
    pluralRules.set(locale, found)
  }
  return found
}
