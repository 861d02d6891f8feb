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

  /** The locale a reader gets when nothing they send names one we have: the site's `defaultLocale`. */
  defaultLocale = FALLBACK

  /** An owner's strings in one locale, as its file has them (for a page to carry to the browser). */
  catalogue (owner: string, locale: string): Strings | undefined {
    return this.catalogues.get(owner)?.get(locale)
  }

  /** Every owner with strings. */
  owners (): string[] {
    return [...this.catalogues.keys()]
  }

  /** A locale we have, spelled as its file is (`pt-br` → `pt-BR`), or undefined. */
  known (locale: unknown): string | undefined {
    if (typeof locale !== 'string') return undefined
    const wanted = locale.toLowerCase()
    return this.locales().find(candidate => candidate.toLowerCase() === wanted)
  }

  /**
   * The reader's language: `requested` (their preference: `?locale=`, their saved choice)
   * when we have it, else the best match of `Accept-Language`, else the site's default.
   */
  resolveLocale (requested: unknown, acceptLanguage: string | undefined, ...preferences: unknown[]): string {
    for (const preference of [requested, ...preferences]) {
      const found = this.known(preference)
      if (found !== undefined) return found
    }
    return negotiateLocale(acceptLanguage, this.locales()) ?? this.defaultLocale
  }
}

/** Languages written right to left (of those a site may ship). */
const RIGHT_TO_LEFT = new Set(['ar', 'fa', 'he', 'ur', 'ps', 'yi', 'dv', 'ckb', 'sd', 'ug'])

/** `rtl` for a language written right to left, else `ltr`: the page's `dir`. */
export function directionOf (locale: string): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(baseLanguage(locale).toLowerCase()) ? 'rtl' : 'ltr'
}

/**
 * The best of `available` for an `Accept-Language` header (RFC 9110 q-values; RFC 4647
 * lookup): each range in order of its q (0 refuses it, ties keep the header's order)
 * matches a locale we have exactly (whatever the case), else one of the same language
 * (`pt` and `pt-PT` find `pt-BR`; `de-AT` finds `de`), preferring the plain language.
 * `*` takes the first available. Undefined when nothing matches.
 */
export function negotiateLocale (header: string | undefined, available: readonly string[]): string | undefined {
  const byLower = new Map(available.map(locale => [locale.toLowerCase(), locale]))
  for (const range of parseAcceptLanguage(header ?? '')) {
    if (range === '*') return available[0]
    const exact = byLower.get(range)
    if (exact !== undefined) return exact
    const language = baseLanguage(range)
    const plain = byLower.get(language)
    if (plain !== undefined) return plain
    const sibling = available.find(locale => baseLanguage(locale).toLowerCase() === language)
    if (sibling !== undefined) return sibling
  }
  return undefined
}

function baseLanguage (locale: string): string {
  return locale.split('-')[0] ?? locale
}

function parseAcceptLanguage (header: string): string[] {
  return header.slice(0, 1000).split(',').slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map(p => p.trim().toLowerCase()).find(p => p.startsWith('q='))
      const weight = q === undefined ? 1 : Number(q.slice(2))
      return { tag: tag.trim().toLowerCase(), q: Number.isFinite(weight) && weight >= 0 && weight <= 1 ? weight : 0, index }
    })
    .filter(entry => /^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(entry.tag) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(entry => entry.tag)
}
