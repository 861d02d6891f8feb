import fs from 'node:fs/promises'
import path from 'node:path'
import { formatMessage } from '../../sdk/message-format.js'

export type Strings = Readonly<Record<string, string>>

const FALLBACK = 'en'
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/

/**
 * Every owner's strings (the host's and each addon's `lang/<locale>.json`), read once at
 * start-up. Lookups fall back to English, then to the key itself.
 */
export class I18n {
  private readonly catalogues = new Map<string, Map<string, Strings>>()

  add (owner: string, locale: string, strings: Strings): void {
    let byLocale = this.catalogues.get(owner)
    if (byLocale === undefined) {
      byLocale = new Map()
      this.catalogues.set(owner, byLocale)
    }
    byLocale.set(locale, { ...byLocale.get(locale), ...strings })
  }

  /** Reads every `<locale>.json` of a folder; a missing folder means "no strings". */
  async addFolder (owner: string, dir: string): Promise<void> {
    let files: string[]
    try {
      files = await fs.readdir(dir)
    } catch {
      return
    }
    for (const file of files.filter(f => f.endsWith('.json'))) {
      const locale = file.slice(0, -'.json'.length)
      if (!LOCALE.test(locale)) continue
      const full = path.join(dir, file)
      let parsed: unknown
      try {
        parsed = JSON.parse(await fs.readFile(full, 'utf8'))
      } catch (error) {
        throw new Error(`${full}: not valid JSON (${(error as Error).message})`)
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) ||
          !Object.values(parsed).every(v => typeof v === 'string')) {
        throw new Error(`${full}: must be an object of strings`)
      }
      this.add(owner, locale, parsed as Strings)
    }
  }

  /** Every locale some owner ships a file for, English first. */
  locales (): string[] {
    const all = new Set<string>([FALLBACK])
    for (const byLocale of this.catalogues.values()) for (const locale of byLocale.keys()) all.add(locale)
    return [...all]
  }

  lookup (owner: string, locale: string, key: string): string | undefined {
    return this.find(owner, locale, key)?.template
  }

  t (owner: string, locale: string, key: string, values: Record<string, unknown> = {}): string {
    const found = this.find(owner, locale, key)
    // An English fallback is read with English plural rules.
    return found === undefined ? key : formatMessage(found.template, values, found.locale)
  }

  /** The string for `key` and the locale it was found in: `locale`, its base language, or English. */
  private find (owner: string, locale: string, key: string): { template: string, locale: string } | undefined {
    const byLocale = this.catalogues.get(owner)
    for (const candidate of [locale, baseLanguage(locale), FALLBACK]) {
      const template = byLocale?.get(candidate)?.[key]
      if (template !== undefined) return { template, locale: candidate }
    }
    return undefined
  }

  /** `?locale=` if we have it, else the best `Accept-Language` match, else English. */
  resolveLocale (requested: unknown, acceptLanguage: string | undefined): string {
    const available = new Set(this.locales())
    if (typeof requested === 'string' && available.has(requested)) return requested
    for (const candidate of parseAcceptLanguage(acceptLanguage ?? '')) {
      if (available.has(candidate)) return candidate
      const base = baseLanguage(candidate)
      if (available.has(base)) return base
    }
    return FALLBACK
  }
}

function baseLanguage (locale: string): string {
  return locale.split('-')[0] ?? locale
}

function parseAcceptLanguage (header: string): string[] {
  return header.split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map(p => p.trim()).find(p => p.startsWith('q='))
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, index }
    })
    .filter(entry => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(entry => entry.tag)
}
