import { formatted, plainText, type FormatNode } from './formatting.js'
import { mentionedNames, USER_LINK_REL } from './text-pieces.js'

/**
 * Shout text as people expect to read it — its formatting (`formatting.ts`), `http(s)://`
 * addresses as links, `@name` of a real account highlighted — drawn with text nodes and
 * elements only, never from markup: every page that shows a shout draws it here.
 */

export { mentionedNames, pieces, USER_LINK_REL, type Piece } from './text-pieces.js'
export { formatted, plainText, type FormatNode } from './formatting.js'

/** The words a spoiler's button says, in the reader's language. */
export interface RichTextWords {
  /** The spoiler's button ("Spoiler"); its state is `aria-expanded`. */
  readonly spoiler: string
}

const ENGLISH: RichTextWords = { spoiler: 'Spoiler' }

const STYLE_TAG = { bold: 'strong', italic: 'em', strike: 's' } as const

/**
 * A spoiler: a button that shows its text (hidden until then, for a screen reader too)
 * and hides it again; the keyboard reaches it as any button.
 */
function spoiler (children: readonly FormatNode[], isUser: ((name: string) => boolean) | undefined, words: RichTextWords): HTMLElement {
  const box = document.createElement('span')
  box.className = 'spoiler'
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'spoiler-toggle'
  button.setAttribute('aria-expanded', 'false')
  button.textContent = words.spoiler
  const hidden = document.createElement('span')
  hidden.className = 'spoiler-text'
  hidden.hidden = true
  hidden.append(draw(children, isUser, words))
  button.addEventListener('click', () => {
    hidden.hidden = !hidden.hidden
    button.setAttribute('aria-expanded', String(!hidden.hidden))
  })
  box.append(button, hidden)
  return box
}

function draw (nodes: readonly FormatNode[], isUser: ((name: string) => boolean) | undefined, words: RichTextWords): DocumentFragment {
  const fragment = document.createDocumentFragment()
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        fragment.append(document.createTextNode(node.text))
        break
      case 'link': {
        const link = document.createElement('a')
        link.setAttribute('href', node.href)
        link.setAttribute('rel', USER_LINK_REL)
        link.textContent = node.text
        fragment.append(link)
        break
      }
      case 'mention': {
        const mention = document.createElement('span')
        mention.className = 'mention'
        mention.textContent = node.text
        fragment.append(mention)
        break
      }
      case 'code': {
        const code = document.createElement('code')
        code.textContent = node.text
        fragment.append(code)
        break
      }
      case 'spoiler':
        fragment.append(spoiler(node.children, isUser, words))
        break
      default: {
        const styled = document.createElement(STYLE_TAG[node.kind])
        styled.append(draw(node.children, isUser, words))
        fragment.append(styled)
      }
    }
  }
  return fragment
}

/**
 * `text` as nodes: its formatting (`<strong>`, `<em>`, `<s>`, `<code>`, a spoiler's button
 * and hidden text), links (with USER_LINK_REL) and `<span class="mention">`.
 */
export function richText (text: string, isUser?: (name: string) => boolean, words: RichTextWords = ENGLISH): DocumentFragment {
  return draw(formatted(text, { isUser }), isUser, words)
}

/**
 * The first words of a shout (a quote's excerpt, cut where it was) as plain text: no
 * markers, and a spoiler's words — one the cut left open too — replaced by `[spoiler]`.
 */
export function plainExcerpt (excerpt: string, words: RichTextWords = ENGLISH): string {
  return plainText(formatted(excerpt, { excerpt: true }), `[${words.spoiler}]`)
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
