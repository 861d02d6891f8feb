// PostgreSQL text cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what must be refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** What every refusal of such text says after the field's name. */
export const UNSTORABLE_TEXT = 'must not contain U+0000 or an unpaired surrogate'

/** Whether PostgreSQL can store `text` as it is (no U+0000, no unpaired surrogate). */
export function isStorableText (text: string): boolean {
  return !UNSTORABLE.test(text)
}
