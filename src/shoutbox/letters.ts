import { LETTER_FORM_RUNS } from './letter-forms.js'

/**
 * What a code point shows, letter-wise, for matching words the way a reader reads them.
 * Spammers write a watched word with characters fonts draw as nothing inside it
 * (`cas`+U+200B+`ino`), or with letters of another drawing (`ᴄᴀꜱɪɴᴏ`, `🅲🅰🆂🅸🅽🅾`).
 */

/**
 * Default-ignorable code points (zero-width space, joiners, word joiner, soft hyphen,
 * BOM, bidi controls, tag characters, variation selectors, Hangul fillers) and the other
 * format characters: drawn as nothing, so they neither end a word nor add to it.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u
const INVISIBLES = new RegExp(INVISIBLE.source, 'gu')

/** Blanks fonts draw as a space though Unicode does not call them one: the Braille blank, the musical null notehead. */
const INVISIBLE_SPACE = /[\p{White_Space}\u2800\u{1D159}]/gu

/** Small capitals, negative circled and squared letters, dingbat digits: the basic letter or digit each draws (see letter-forms.ts). */
const LETTER_FORMS: ReadonlyMap<string, string> = new Map(LETTER_FORM_RUNS.flatMap(([first, bases]) =>
  [...bases].map((base, i) => [String.fromCodePoint(first + i), base] as const)))

/**
 * `char` (one code point) as the letters it shows: its compatibility form (NFKC: full-width,
 * circled, squared, mathematical letters), with invisible characters removed, invisible
 * spaces as a space, and the letter forms NFKC leaves alone as their basic letter or digit.
 */
export function shownLetters (char: string): string {
  let shown = ''
  for (const each of char.normalize('NFKC').replace(INVISIBLES, '').replace(INVISIBLE_SPACE, ' ')) shown += LETTER_FORMS.get(each) ?? each
  return shown
}

/** Whether `char` is drawn as nothing (removed by `shownLetters`, not read as a space). */
export function isInvisible (char: string): boolean {
  return INVISIBLE.test(char)
}
