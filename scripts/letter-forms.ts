/**
 * Writes src/shoutbox/letter-forms.ts: the code points that Unicode names as a form of a
 * basic Latin letter or digit (small capitals, negative circled and squared letters,
 * dingbat digits, …) but whose compatibility form (NFKC) is not that letter or digit.
 * Watched words read them as the letter or digit they show.
 *
 *   node --import tsx scripts/letter-forms.ts [path/to/UnicodeData.txt]
 *
 * The file is the Unicode Character Database's UnicodeData.txt (Debian: the `unicode-data`
 * package, /usr/share/unicode/UnicodeData.txt). A name is read as a form of letter X when
 * it ends in `X` or `DIGIT X` and every other word of it is one that says how a letter is
 * drawn (FORM_WORDS): `LATIN LETTER SMALL CAPITAL C`, `NEGATIVE SQUARED LATIN CAPITAL
 * LETTER C`, `DINGBAT NEGATIVE CIRCLED DIGIT ONE`. Combining letters are marks (removed
 * anyway) and tag letters are invisible (removed): neither is a word here.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const source = process.argv[2] ?? '/usr/share/unicode/UnicodeData.txt'
const target = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/shoutbox/letter-forms.ts')

/** Words that say how a letter or digit is drawn, not which one it is. */
const FORM_WORDS = new Set([
  'LATIN', 'LETTER', 'CAPITAL', 'SMALL', 'MODIFIER', 'SUPERSCRIPT', 'SUBSCRIPT',
  'CIRCLED', 'SQUARED', 'NEGATIVE', 'CROSSED', 'PARENTHESIZED', 'FULLWIDTH', 'HALFWIDTH',
  'ITALIC', 'TORTOISE', 'SHELL', 'BRACKETED', 'DINGBAT', 'SANS-SERIF', 'SEGMENTED',
  'MATHEMATICAL', 'BOLD', 'SCRIPT', 'FRAKTUR', 'DOUBLE-STRUCK', 'MONOSPACE', 'BLACK-LETTER', 'OUTLINED'
])
const DIGITS = ['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE']

/** The basic letter or digit `name` draws, or undefined when it names something else. */
function baseOf (name: string): string | undefined {
  // DOUBLE draws a circle twice (a digit's), but a letter twice too (`LATIN SMALL LETTER DOUBLE R`): only the first is a form.
  const words = name.replace('DOUBLE CIRCLED', 'CIRCLED').split(' ')
  const last = words.pop()!
  let base: string
  if (/^[A-Z]$/.test(last)) {
    // A letter needs LETTER, or CAPITAL/SMALL, before it: `CIRCLED LATIN CAPITAL LETTER C`, not `SQUARED CL`.
    if (!words.includes('LETTER') && !words.includes('CAPITAL') && !words.includes('SMALL')) return undefined
    base = last.toLowerCase()
  } else if (DIGITS.includes(last) && words.pop() === 'DIGIT') {
    base = String(DIGITS.indexOf(last))
  } else {
    return undefined
  }
  return words.every(word => FORM_WORDS.has(word)) ? base : undefined
}

/** Whether the compatibility form of `char` is `base` already (case, diacritics and signs aside, as `(a)` for ⒜): NFKC covers it. */
const coveredByNfkc = (char: string, base: string): boolean =>
  char.normalize('NFKC').normalize('NFD').replace(/[^\p{L}\p{N}]/gu, '').toLowerCase() === base

const forms: Array<{ code: number, base: string, name: string }> = []
for (const line of fs.readFileSync(source, 'utf8').split('\n')) {
  const [hex, name, category] = line.split(';')
  if (hex === undefined || name === undefined || category === undefined || name.startsWith('<')) continue
  // Letters, digits and symbols only: no marks (COMBINING …), no format characters (TAG …).
  if (!/^(L|N|So)/.test(category)) continue
  const base = baseOf(name)
  const char = String.fromCodePoint(parseInt(hex, 16))
  if (base !== undefined && !coveredByNfkc(char, base)) forms.push({ code: parseInt(hex, 16), base, name })
}

// Runs of consecutive code points: `[first, 'abc…']`, the letters they draw in order.
const runs: Array<{ from: number, bases: string, first: string, last: string }> = []
for (const form of forms) {
  const run = runs[runs.length - 1]
  if (run !== undefined && run.from + run.bases.length === form.code) {
    run.bases += form.base
    run.last = form.name
  } else {
    runs.push({ from: form.code, bases: form.base, first: form.name, last: form.name })
  }
}

const readMe = path.join(path.dirname(source), 'ReadMe.txt')
const version = (fs.existsSync(readMe) ? /Version (\d+\.\d+\.\d+)/.exec(fs.readFileSync(readMe, 'utf8'))?.[1] : undefined) ?? '(version unknown)'
const hex = (code: number): string => `0x${code.toString(16).toUpperCase()}`
fs.writeFileSync(target, `// Written by scripts/letter-forms.ts from UnicodeData.txt ${version}: run it again rather than edit.

/**
 * Code points Unicode names as a form of a basic Latin letter or digit whose compatibility
 * form (NFKC) is not that letter or digit: each run is its first code point and the letters
 * or digits its code points draw, in order.
 */
export const LETTER_FORM_RUNS: ReadonlyArray<readonly [number, string]> = [
${runs.map(run => `  [${hex(run.from)}, '${run.bases}'], // ${run.first}${run.bases.length > 1 ? ` … ${run.last}` : ''}`).join('\n')}
]
`)
console.log(`${forms.length} code points in ${runs.length} runs → ${path.relative(process.cwd(), target)}`)
