/**
 * What each language file lacks, next to English: missing keys, keys English no longer
 * has, placeholders that differ, and plurals without the forms the language needs.
 *
 *   node --import tsx scripts/lang-check.ts            every folder, every language
 *   node --import tsx scripts/lang-check.ts --missing  only the missing keys, with the English text
 *
 * Exits 1 when anything is found, so it can guard a commit; `test/host/languages.test.ts`
 * runs the same check.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { LANGUAGES } from '../src/host/site-face/languages.js'

export { LANGUAGES }

/** The folders that hold strings: the host's and the addon's. */
export const STRING_FOLDERS = ['src/host/lang', 'lang'] as const

/**
 * Languages whose nouns do not change after a number: a translation may write `{n} saniye`
 * where English needs a plural, and a plural there may give `other` alone. Every other
 * language must give each plural category `Intl.PluralRules` knows for it.
 */
const NUMBER_DOES_NOT_INFLECT = new Set(['tr', 'ja'])

const PLURAL = /\{(\w+),\s*plural,\s*((?:[=\w]+\s*\{(?:[^{}]|\{\w+\})*\}\s*)+)\}/g
const FORM = /([=\w]+)\s*\{((?:[^{}]|\{\w+\})*)\}/g
const PLACEHOLDER = /\{(\w+)\}/g

export interface Placeholders {
  /** Every name the template reads, plain or as a plural's number. */
  names: Set<string>
  /** The plurals: their number's name → the categories given. */
  plurals: Map<string, Set<string>>
}

export function placeholdersOf (template: string): Placeholders {
  const plurals = new Map<string, Set<string>>()
  const names = new Set<string>()
  const rest = template.replace(PLURAL, (_whole, name: string, forms: string) => {
    const categories = new Set<string>()
    for (const [, category, text] of forms.matchAll(FORM)) {
      categories.add(category!)
      for (const [, inner] of text!.matchAll(PLACEHOLDER)) names.add(inner!)
    }
    plurals.set(name, categories)
    names.add(name)
    return ''
  })
  for (const [, name] of rest.matchAll(PLACEHOLDER)) names.add(name!)
  return { names, plurals }
}

/** The plural categories a language's plurals must give. */
export function neededCategories (language: string): string[] {
  if (NUMBER_DOES_NOT_INFLECT.has(language)) return ['other']
  // Sorted: Node 20's ICU lists them alphabetically, Node 24's in CLDR's order.
  return [...new Intl.PluralRules(language).resolvedOptions().pluralCategories].sort()
}

export interface Finding {
  folder: string
  language: string
  key: string
  problem: string
}

type Strings = Record<string, string>

/** Every problem of one language's strings, measured against English's. */
export function checkStrings (folder: string, language: string, english: Strings, strings: Strings): Finding[] {
  const found: Finding[] = []
  const add = (key: string, problem: string): void => { found.push({ folder, language, key, problem }) }
  const needed = neededCategories(language)
  for (const [key, source] of Object.entries(english)) {
    const text = strings[key]
    if (text === undefined) { add(key, 'missing'); continue }
    const want = placeholdersOf(source)
    const have = placeholdersOf(text)
    const lacking = [...want.names].filter(name => !have.names.has(name))
    const extra = [...have.names].filter(name => !want.names.has(name))
    if (lacking.length > 0) add(key, `lacks {${lacking.join('}, {')}}`)
    if (extra.length > 0) add(key, `has {${extra.join('}, {')}} that English has not`)
    for (const [name, categories] of have.plurals) {
      const without = needed.filter(category => !categories.has(category))
      if (without.length > 0) add(key, `{${name}, plural} lacks ${without.join(', ')}`)
      if (!categories.has('other')) add(key, `{${name}, plural} lacks other`)
    }
    if (!NUMBER_DOES_NOT_INFLECT.has(language) && needed.length > 1) {
      for (const name of want.plurals.keys()) if (!have.plurals.has(name)) add(key, `{${name}} is a plural in English and not here`)
    }
    if (text.trim() === '' && source.trim() !== '') add(key, 'empty')
  }
  for (const key of Object.keys(strings)) if (!(key in english)) add(key, 'not in English (left over?)')
  return found
}

export function readStrings (root: string, folder: string, language: string): Strings | undefined {
  const file = path.join(root, folder, `${language}.json`)
  if (!fs.existsSync(file)) return undefined
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Strings
}

/** Every finding over every folder and language. */
export function checkAll (root: string): Finding[] {
  const found: Finding[] = []
  for (const folder of STRING_FOLDERS) {
    const english = readStrings(root, folder, 'en') ?? {}
    for (const language of LANGUAGES.slice(1)) {
      const strings = readStrings(root, folder, language)
      if (strings === undefined) found.push({ folder, language, key: '*', problem: 'no file' })
      else found.push(...checkStrings(folder, language, english, strings))
    }
  }
  return found
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  const onlyMissing = process.argv.includes('--missing')
  const found = checkAll(root).filter(finding => !onlyMissing || finding.problem === 'missing')
  for (const { folder, language, key, problem } of found) {
    const english = problem === 'missing' ? `  (en: ${JSON.stringify(readStrings(root, folder, 'en')?.[key])})` : ''
    console.log(`${folder}/${language}.json  ${key}: ${problem}${english}`)
  }
  console.log(found.length === 0 ? 'every language has every key' : `${found.length} to fix`)
  process.exitCode = found.length === 0 ? 0 : 1
}
