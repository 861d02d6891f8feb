/**
 * Shout text as people expect to read it — `http(s)://` addresses as links, `@name` of
 * a real account highlighted — built from nodes, never from markup: the text is cut
 * into pieces, each becomes a text node, a link whose address is set as an attribute,
 * or a highlighted span. Anything else in the text (tags, `javascript:`) stays text.
 */

export type Piece =
  | { readonly kind: 'text', readonly text: string }
  | { readonly kind: 'link', readonly text: string, readonly href: string }
  | { readonly kind: 'mention', readonly text: string, readonly name: string }

/** What links in user text carry: no ranking credit, no access to this page, no referrer. */
export const USER_LINK_REL = 'nofollow ugc noopener noreferrer'

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"]+/giu
// A name as usernames are made (3–32 of A–Z a–z 0–9 _ -), after the start or a non-word character (so not an e-mail address).
const MENTION_PATTERN = /(?<![\p{L}\p{N}_@.-])@([A-Za-z0-9_-]{3,32})(?![A-Za-z0-9_-])/gu
// Punctuation that ends a sentence rather than the address.
const TRAILING = new Set(['.', ',', ';', ':', '!', '?', "'", '"', '*'])

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

/**
 * The pieces of `text`, in order; joined, their `text` is `text` exactly. A mention is a
 * piece only when `isUser` says the name is an account's.
 */
export function pieces (text: string, isUser: (name: string) => boolean = () => false): Piece[] {
  const out: Piece[] = []
  const plain = (from: number, to: number): void => {
    if (to <= from) return
    const segment = text.slice(from, to)
    let last = 0
    for (const match of segment.matchAll(MENTION_PATTERN)) {
      const name = match[1]!
      if (!isUser(name)) continue
      if (match.index > last) out.push({ kind: 'text', text: segment.slice(last, match.index) })
      out.push({ kind: 'mention', text: match[0], name })
      last = match.index + match[0].length
    }
    if (last < segment.length) out.push({ kind: 'text', text: segment.slice(last) })
  }
  let last = 0
  for (const match of text.matchAll(URL_PATTERN)) {
    const address = trimAddress(match[0])
    const href = safeHref(address)
    if (href === undefined) continue
    plain(last, match.index)
    out.push({ kind: 'link', text: address, href })
    last = match.index + address.length
  }
  plain(last, text.length)
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

/** `text` as nodes: text nodes, links (with USER_LINK_REL) and `<span class="mention">`. */
export function richText (text: string, isUser?: (name: string) => boolean): DocumentFragment {
  const fragment = document.createDocumentFragment()
  for (const piece of pieces(text, isUser)) {
    if (piece.kind === 'text') {
      fragment.append(document.createTextNode(piece.text))
    } else if (piece.kind === 'link') {
      const link = document.createElement('a')
      link.setAttribute('href', piece.href)
      link.setAttribute('rel', USER_LINK_REL)
      link.textContent = piece.text
      fragment.append(link)
    } else {
      const mention = document.createElement('span')
      mention.className = 'mention'
      mention.textContent = piece.text
      fragment.append(mention)
    }
  }
  return fragment
}

/**
 * Which names are accounts, asked of the host (`GET /api/users/known`) once per name,
 * fifty names a request; remembered for the life of the page. Told to wait (429, the
 * client's quota of lookups), it asks nothing more until `Retry-After` has passed: names
 * stay plain meanwhile.
 */
export class KnownUsers {
  private readonly answers = new Map<string, boolean>()
  private quietUntil = 0

  constructor (private readonly now: () => number = () => Date.now()) {}

  /** True only for a name the host said is an account. */
  readonly isUser = (name: string): boolean => this.answers.get(name.toLowerCase()) === true

  /** Asks about the names of `texts` not asked about yet; true when a mention among them is an account. */
  async learn (texts: readonly string[]): Promise<boolean> {
    const unknown = [...new Set(texts.flatMap(mentionedNames).map(name => name.toLowerCase()))].filter(name => !this.answers.has(name))
    let found = false
    for (let i = 0; i < unknown.length && this.now() >= this.quietUntil; i += 50) {
      const batch = unknown.slice(i, i + 50)
      try {
        const response = await fetch(`/api/users/known?names=${encodeURIComponent(batch.join(','))}`)
        if (response.status === 429) this.quietUntil = this.now() + (Number(response.headers.get('retry-after')) || 60) * 1000
        if (!response.ok) continue
        const { usernames } = await response.json() as { usernames: string[] }
        const known = new Set(usernames.map(name => name.toLowerCase()))
        for (const name of batch) this.answers.set(name, known.has(name))
        found ||= known.size > 0
      } catch {
        // Offline: the names are asked about again with the next shouts.
      }
    }
    return found
  }
}
