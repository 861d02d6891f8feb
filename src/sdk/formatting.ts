import { linksOf, withMentions } from './text-pieces.js'

/**
 * The formatting a shout may use, read from its text into a tree of safe nodes: nothing
 * in the text is ever markup. `**bold**`, `*italic*` or `_italic_`, `` `code` ``,
 * `~~strike~~`, `||spoiler||`, bare `http(s)://` links and `@name` of an account. A
 * marker nobody closes stays text, as written; a code span's text is never read further
 * (`` `**` `` is two stars); a link's address is a leaf (its `_` and `*` are its own).
 * One pass over the text and one over its markers: linear in its length, whatever it holds
 * (each marker is pushed and popped once; `meter` counts the steps, for a test).
 */

export type Style = 'bold' | 'italic' | 'strike' | 'spoiler'

export type FormatNode =
  | { readonly kind: 'text', readonly text: string }
  | { readonly kind: 'link', readonly text: string, readonly href: string }
  | { readonly kind: 'mention', readonly text: string, readonly name: string }
  | { readonly kind: 'code', readonly text: string }
  | { readonly kind: Style, readonly children: readonly FormatNode[] }

export interface FormatOptions {
  /** Whether `@name` is an account's (a mention); none is, without it. */
  readonly isUser?: (name: string) => boolean
  /**
   * The text is the start of a longer one (a quote's excerpt): a spoiler it opens and does
   * not close was cut, and hides the rest rather than show it.
   */
  readonly excerpt?: boolean
  /** Counts the parser's steps (a test of its linear time). */
  readonly meter?: { steps: number }
}

type Marker = '**' | '*' | '_' | '~~' | '||'

const STYLE_OF: Readonly<Record<Marker, Style>> = { '**': 'bold', '*': 'italic', _: 'italic', '~~': 'strike', '||': 'spoiler' }

interface Delimiter {
  readonly kind: 'marker'
  readonly marker: Marker
  readonly canOpen: boolean
  readonly canClose: boolean
  /** The other end, once paired; -1 while not (then it is text). */
  pair: number
}

type Item = FormatNode | Delimiter

const isSpace = (char: string | undefined): boolean => char === undefined || /\s/u.test(char)
const isWordChar = (char: string | undefined): boolean => char !== undefined && /[\p{L}\p{N}]/u.test(char)

/** The markers a run of one character makes, in order, or none (the run is text). */
function markersOfRun (char: string, length: number, closing: boolean): Marker[] {
  if (char === '*') {
    if (length === 1) return ['*']
    if (length === 2) return ['**']
    // `***both***`: bold outside, italic inside.
    if (length === 3) return closing ? ['*', '**'] : ['**', '*']
    return []
  }
  if (char === '_') return length === 1 ? ['_'] : []
  if (char === '~') return length === 2 ? ['~~'] : []
  return length === 2 ? ['||'] : []
}

const RUN_CHARS = new Set(['*', '_', '~', '|'])

/** The text between `from` and `to` of `text`, as text items and markers. */
function tokenize (text: string, from: number, to: number, items: Item[], meter: { steps: number }): void {
  let plain = from
  let at = from
  while (at < to) {
    meter.steps++
    const char = text[at]!
    if (!RUN_CHARS.has(char)) {
      at++
      continue
    }
    let end = at + 1
    while (end < to && text[end] === char) {
      meter.steps++
      end++
    }
    const before = text[at - 1]
    const after = text[end]
    const leftFlanking = !isSpace(after)
    const rightFlanking = !isSpace(before)
    // An underscore inside a word (snake_case, @bora_1) is part of it.
    const canOpen = leftFlanking && (char !== '_' || !isWordChar(before))
    const canClose = rightFlanking && (char !== '_' || !isWordChar(after))
    const markers = canOpen || canClose ? markersOfRun(char, end - at, canClose) : []
    if (markers.length > 0) {
      if (at > plain) items.push({ kind: 'text', text: text.slice(plain, at) })
      for (const marker of markers) items.push({ kind: 'marker', marker, canOpen, canClose, pair: -1 })
      plain = end
    }
    at = end
  }
  if (to > plain) items.push({ kind: 'text', text: text.slice(plain, to) })
}

/** The text outside code spans: its links as leaves, the rest as text and markers. */
function tokenizeWithLinks (text: string, from: number, to: number, items: Item[], meter: { steps: number }): void {
  let last = from
  for (const link of linksOf(text.slice(from, to))) {
    meter.steps++
    tokenize(text, last, from + link.at, items, meter)
    items.push({ kind: 'link', text: link.text, href: link.href })
    last = from + link.at + link.text.length
  }
  tokenize(text, last, to, items, meter)
}

/** `text` as items: code spans (a backtick to the next), links, text and markers. */
function itemsOf (text: string, meter: { steps: number }): Item[] {
  const items: Item[] = []
  let at = 0
  while (at < text.length) {
    meter.steps++
    const open = text.indexOf('`', at)
    const close = open === -1 ? -1 : text.indexOf('`', open + 1)
    if (close === -1) break
    // Two backticks together are text, as written.
    if (close === open + 1) {
      tokenizeWithLinks(text, at, close + 1, items, meter)
    } else {
      tokenizeWithLinks(text, at, open, items, meter)
      items.push({ kind: 'code', text: text.slice(open + 1, close) })
    }
    at = close + 1
  }
  tokenizeWithLinks(text, at, text.length, items, meter)
  return items
}

/** Pairs each closing marker with the nearest opener of its kind; an opener passed over stays text. */
function pairMarkers (items: Item[], excerpt: boolean, meter: { steps: number }): void {
  const openers: number[] = []
  const open = new Map<Marker, number>()
  items.forEach((item, index) => {
    meter.steps++
    if (item.kind !== 'marker') return
    if (item.canClose && (open.get(item.marker) ?? 0) > 0) {
      for (;;) {
        meter.steps++
        const top = openers.pop()!
        const opener = items[top] as Delimiter
        open.set(opener.marker, open.get(opener.marker)! - 1)
        if (opener.marker === item.marker) {
          opener.pair = index
          item.pair = top
          return
        }
      }
    }
    if (item.canOpen) {
      openers.push(index)
      open.set(item.marker, (open.get(item.marker) ?? 0) + 1)
    }
  })
  // An excerpt cut inside a spoiler: the first spoiler left open hides all after it.
  const cut = excerpt ? openers.find(index => (items[index] as Delimiter).marker === '||') : undefined
  if (cut !== undefined) {
    items.push({ kind: 'marker', marker: '||', canOpen: false, canClose: true, pair: cut })
    ;(items[cut] as Delimiter).pair = items.length - 1
  }
}

/** Neighbouring text as one node, then cut at the mentions `isUser` knows. */
function finish (nodes: FormatNode[], isUser: (name: string) => boolean): FormatNode[] {
  const out: FormatNode[] = []
  let text = ''
  const flush = (): void => {
    if (text !== '') out.push(...withMentions(text, isUser))
    text = ''
  }
  for (const node of nodes) {
    if (node.kind === 'text') {
      text += node.text
    } else {
      flush()
      out.push(node)
    }
  }
  flush()
  return out
}

/** The tree of `text`: what each page draws (with text nodes and elements only). */
export function formatted (text: string, options: FormatOptions = {}): FormatNode[] {
  const meter = options.meter ?? { steps: 0 }
  const isUser = options.isUser ?? (() => false)
  const items = itemsOf(text, meter)
  pairMarkers(items, options.excerpt === true, meter)
  const stack: Array<{ style: Style, children: FormatNode[] }> = [{ style: 'bold', children: [] }]
  items.forEach((item, index) => {
    meter.steps++
    if (item.kind !== 'marker') {
      stack.at(-1)!.children.push(item)
    } else if (item.pair === -1) {
      stack.at(-1)!.children.push({ kind: 'text', text: item.marker })
    } else if (item.pair > index) {
      stack.push({ style: STYLE_OF[item.marker], children: [] })
    } else {
      const done = stack.pop()!
      stack.at(-1)!.children.push({ kind: done.style, children: finish(done.children, isUser) })
    }
  })
  return finish(stack[0]!.children, isUser)
}

/**
 * What the tree reads as in plain words, for a place that shows no formatting (a quote's
 * line, a button's label): the markers gone, each spoiler's text replaced by `hidden`.
 */
export function plainText (nodes: readonly FormatNode[], hidden: string): string {
  return nodes.map(node => {
    if (node.kind === 'spoiler') return hidden
    return 'children' in node ? plainText(node.children, hidden) : node.text
  }).join('')
}
