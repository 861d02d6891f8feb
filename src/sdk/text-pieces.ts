/**
 * Shout text cut into what it holds besides words — `http(s)://` addresses and `@name`
 * of a real account — as pieces, never parsed from markup: each becomes a text node, a
 * link whose address is set as an attribute, or a highlighted span. Anything else in the
 * text (tags, `javascript:`) stays text. Pure: the server and the pages share it.
 */

export type Piece =
  | { readonly kind: 'text', readonly text: string }
  | { readonly kind: 'link', readonly text: string, readonly href: string }
  | { readonly kind: 'mention', readonly text: string, readonly name: string }

/** What links in user text carry: no ranking credit, no access to this page, no referrer. */
export const USER_LINK_REL = 'nofollow ugc noopener noreferrer'

// An address after the start or a character that is not a letter or digit (`_https://…_` is one in italics; `xhttps://` is none).
const URL_PATTERN = /(?<![\p{L}\p{N}])https?:\/\/[^\s<>"]+/giu
// A name as usernames are made (3–32 of A–Z a–z 0–9 _ -), after the start or a non-word character (so not an e-mail address).
const MENTION_PATTERN = /(?<![\p{L}\p{N}_@.-])@([A-Za-z0-9_-]{3,32})(?![A-Za-z0-9_-])/gu
// Punctuation that ends a sentence (or a formatting marker: `**https://a.b**`) rather than the address.
const TRAILING = new Set(['.', ',', ';', ':', '!', '?', "'", '"', '*', '_', '~', '|', '`'])

function withoutTrailing (text: string): string {
  let end = text.length
  while (end > 0 && TRAILING.has(text[end - 1]!)) end--
  return text.slice(0, end)
}

/**
 * Cuts an address found in text: closing brackets stay only when the address opened them.
 * Linear in the address's length (brackets are counted once), whatever it ends with.
 */
function trimAddress (raw: string): string {
  let address = withoutTrailing(raw)
  for (const [open, close] of [['(', ')'], ['[', ']'], ['{', '}']] as const) {
    const opened = count(address, open)
    let closed = count(address, close)
    while (address.endsWith(close) && closed > opened) {
      address = withoutTrailing(address.slice(0, -1))
      closed--
    }
  }
  return address
}

function count (text: string, char: string): number {
  return text.split(char).length - 1
}

/** The address a link may go to: http or https only, parsed by the platform's own URL parser. */
function safeHref (address: string): string | undefined {
  try {
    const url = new URL(address)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** The links of `text`, in order: where each starts, its text as written and where it goes. */
export function linksOf (text: string): Array<{ readonly at: number, readonly text: string, readonly href: string }> {
  const found: Array<{ at: number, text: string, href: string }> = []
  for (const match of text.matchAll(URL_PATTERN)) {
    const address = trimAddress(match[0])
    const href = safeHref(address)
    if (href !== undefined) found.push({ at: match.index, text: address, href })
  }
  return found
}

/** `text` (no links in it) as text and the mentions `isUser` knows, in order; joined, their `text` is `text`. */
export function withMentions (text: string, isUser: (name: string) => boolean): Piece[] {
  const out: Piece[] = []
  let last = 0
  for (const match of text.matchAll(MENTION_PATTERN)) {
    const name = match[1]!
    if (!isUser(name)) continue
    if (match.index > last) out.push({ kind: 'text', text: text.slice(last, match.index) })
    out.push({ kind: 'mention', text: match[0], name })
    last = match.index + match[0].length
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) })
  return out
}

/**
 * The pieces of `text`, in order; joined, their `text` is `text` exactly. A mention is a
 * piece only when `isUser` says the name is an account's.
 */
export function pieces (text: string, isUser: (name: string) => boolean = () => false): Piece[] {
  const out: Piece[] = []
  let last = 0
  for (const link of linksOf(text)) {
    out.push(...withMentions(text.slice(last, link.at), isUser))
    out.push({ kind: 'link', text: link.text, href: link.href })
    last = link.at + link.text.length
  }
  out.push(...withMentions(text.slice(last), isUser))
  // Neighbouring text pieces read as one.
  return out.reduce<Piece[]>((merged, piece) => {
    const previous = merged.at(-1)
    if (piece.kind === 'text' && previous?.kind === 'text') merged[merged.length - 1] = { kind: 'text', text: previous.text + piece.text }
    else merged.push(piece)
    return merged
  }, [])
}

/** The names written as `@name` in `text` (whether or not they are accounts). */
export function mentionedNames (text: string): string[] {
  const urls = [...text.matchAll(URL_PATTERN)].map(match => [match.index, match.index + match[0].length] as const)
  return [...text.matchAll(MENTION_PATTERN)]
    .filter(match => !urls.some(([from, to]) => match.index >= from && match.index < to))
    .map(match => match[1]!)
}
