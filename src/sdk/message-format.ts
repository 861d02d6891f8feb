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
  return template
    .replace(PLURAL, (whole, name: string, forms: string) => {
      const value = values[name]
      if (value === undefined || value === null) return whole
      const chosen = pluralForms(forms)
      const count = Number(value)
      const form = (Number.isFinite(count) ? chosen.get(`=${count}`) ?? chosen.get(rules(locale).select(count)) : undefined) ?? chosen.get('other')
      return form === undefined ? whole : form.replaceAll('#', String(value))
    })
    .replace(PLACEHOLDER, (whole, name: string) => {
      const value = values[name]
      return value === undefined || value === null ? whole : String(value)
    })
}

const PLACEHOLDER = /\{(\w+)\}/g
/** `{name, plural, <forms>}`, where a form's text may hold `{name}` placeholders (one level). */
const PLURAL = /\{(\w+),\s*plural,\s*((?:[=\w]+\s*\{(?:[^{}]|\{\w+\})*\}\s*)+)\}/g
const FORM = /([=\w]+)\s*\{((?:[^{}]|\{\w+\})*)\}/g

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
