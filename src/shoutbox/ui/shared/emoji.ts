import { gemoji } from 'gemoji'

/**
 * The emoji the widget offers, bundled with the page (GitHub's set, from the `gemoji`
 * package): its picker's groups, and its `:shortcode:` names. The widget loads this module
 * only when a member opens the picker or sends a text with a shortcode in it, so a reader
 * who does neither never downloads it.
 */

export interface Emoji {
  readonly emoji: string
  /** Its shortcodes, without colons: `['+1', 'thumbsup']`. */
  readonly names: readonly string[]
  /** What it shows, in words (`thumbs up`): its label for a screen reader. */
  readonly description: string
  /** Its names, tags and description, lower case, for the search. */
  readonly words: string
}

export interface EmojiGroup { readonly name: string, readonly emoji: readonly Emoji[] }

const all: Emoji[] = gemoji.map(entry => ({
  emoji: entry.emoji,
  names: entry.names,
  description: entry.description,
  words: [...entry.names, ...entry.tags, entry.description].join(' ').toLowerCase()
}))

/** The groups, in Unicode's order ("Smileys & Emotion" first). */
export const EMOJI_GROUPS: readonly EmojiGroup[] = [...new Set(gemoji.map(entry => entry.category))]
  .map(name => ({ name, emoji: all.filter((_, i) => gemoji[i]!.category === name) }))

const byName = new Map(all.flatMap(entry => entry.names.map(name => [name, entry.emoji] as const)))

/**
 * `:name:` as written in a shout (a name of letters, digits, `_`, `+` or `-`), standing on
 * its own: not glued to a word or a path, so `10:30:00` and `urn:b:c` are left alone.
 */
const SHORTCODE = /(?<![\p{L}\p{N}_/]):([a-z0-9_+-]+):(?![\p{L}\p{N}_])/giu

/** Turns each `:name:` the set knows into its emoji; anything else (`:nothing:`, `10:30:00`) stays as it was written. */
export function withEmoji (text: string): string {
  return text.replace(SHORTCODE, (written, name: string) => byName.get(name.toLowerCase()) ?? written)
}

/** The emoji whose names, tags or description hold every word of `query` (at most `limit`, in the set's order). */
export function searchEmoji (query: string, limit = 96): Emoji[] {
  const words = query.toLowerCase().replaceAll(':', ' ').split(/\s+/).filter(word => word !== '')
  if (words.length === 0) return []
  const found: Emoji[] = []
  for (const entry of all) {
    if (words.every(word => entry.words.includes(word))) found.push(entry)
    if (found.length === limit) break
  }
  return found
}
