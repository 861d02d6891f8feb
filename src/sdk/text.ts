// PostgreSQL text cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what must be refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** What every refusal of such text says after the field's name. */
export const UNSTORABLE_TEXT = 'must not contain U+0000 or an unpaired surrogate'

/** Whether PostgreSQL can store `text` as it is (no U+0000, no unpaired surrogate). */
export function isStorableText (text: string): boolean {
  return !UNSTORABLE.test(text)
}

// White_Space, and the characters fonts draw as nothing: zero-width spaces and joiners,
// U+FEFF, the soft hyphen, Hangul fillers, variation selectors, the other format
// characters (Cf), and the blanks spammers know (U+2800 Braille blank, U+1D159 null
// notehead, U+16FE4 Khitan filler). A text of only these shows nothing at all.
// (U+16FE4 is a combining mark: outside the class, lest it seem to combine with the one before.)
const BLANK = /^(?:[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800\u{1D159}]|\u{16FE4})*$/u

/** Whether `text` would show nothing: empty, or only whitespace and invisible characters. Browser code uses it too. */
export function isBlankText (text: string): boolean {
  return BLANK.test(text)
}
