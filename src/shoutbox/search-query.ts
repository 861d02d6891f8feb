/*
 * What a search asks for, reduced to what it means: PostgreSQL turns the words into a
 * tsquery (websearch_to_tsquery, so no input is ever read as SQL or tsquery syntax); this
 * module reads that tsquery's text and removes what cannot change the answer — a word
 * said twice, `x & !x` (no shout), `x | !x` (every shout) — before any shout is read.
 * "the" forty times and "-the" is then no search at all, not a query of 41 terms that
 * the search index evaluates for every shout holding "the".
 */

/** A tsquery as a tree: a lexeme, !, &, |, and a phrase (`<->`, `<N>`). */
export type Term =
  | { readonly kind: 'word', readonly text: string }
  | { readonly kind: 'not', readonly of: Term }
  | { readonly kind: 'and' | 'or', readonly of: readonly Term[] }
  | { readonly kind: 'phrase', readonly left: Term, readonly right: Term, readonly distance: number }

/** Words a search may hold, once said-twice words are taken out: more is refused (BAD_REQUEST). */
export const MAX_SEARCH_WORDS = 16

/** A search as it will run: `all` (matches every shout), `none` (matches none), or a query. */
export type Search =
  | { readonly kind: 'all' }
  | { readonly kind: 'none' }
  | {
    readonly kind: 'query'
    /** The simplified tsquery, as text PostgreSQL reads back with `::tsquery`. */
    readonly tsquery: string
    /** Lexemes it holds, each once. */
    readonly words: readonly string[]
    /** Lexemes it holds, counted as often as they occur (a phrase may say one twice). */
    readonly size: number
    /**
     * For each alternative (the query's top-level `|`), the lexemes every shout it matches
     * must hold; null when some alternative requires none (`-w0`): the search index cannot
     * narrow it.
     */
    readonly required: ReadonlyArray<readonly string[]> | null
  }

/** `text`, the output of `websearch_to_tsquery(...)::text`, simplified; undefined when it is not text this module reads. */
export function simplifySearch (text: string): Search | undefined {
  if (text.trim() === '') return { kind: 'none' }
  const parsed = parse(text)
  if (parsed === undefined) return undefined
  const simple = simplify(parsed)
  if (simple === true) return { kind: 'all' }
  if (simple === false) return { kind: 'none' }
  const all = wordsOf(simple)
  const words = [...new Set(all)]
  const alternatives = simple.kind === 'or' ? simple.of : [simple]
  const required = alternatives.map(each => [...requiredOf(each)])
  return { kind: 'query', tsquery: serialise(simple), words, size: all.length, required: required.some(each => each.length === 0) ? null : required }
}

// ---------------------------------------------------------------- reading

type Token = { kind: 'word', text: string } | { kind: 'op', op: '&' | '|' | '!' | '(' | ')' } | { kind: 'phrase', distance: number }

function tokens (text: string): Token[] | undefined {
  const out: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === ' ') {
      i++
    } else if (c === "'") {
      let word = ''
      i++
      for (;;) {
        if (i >= text.length) return undefined
        const d = text[i]!
        if (d === "'" && text[i + 1] === "'") {
          word += "'"
          i += 2
        } else if (d === "'") {
          i++
          break
        } else if (d === '\\' && i + 1 < text.length) {
          word += text[i + 1]!
          i += 2
        } else {
          word += d
          i++
        }
      }
      out.push({ kind: 'word', text: word })
    } else if (c === '&' || c === '|' || c === '!' || c === '(' || c === ')') {
      out.push({ kind: 'op', op: c })
      i++
    } else if (c === '<') {
      const match = /^<(-|\d{1,5})>/.exec(text.slice(i))
      if (match === null) return undefined
      out.push({ kind: 'phrase', distance: match[1] === '-' ? 1 : Number(match[1]) })
      i += match[0].length
    } else {
      // Weights, prefixes (`:*`) and anything else websearch_to_tsquery does not make.
      return undefined
    }
  }
  return out
}

/** Precedence as PostgreSQL's: ! binds tightest, then phrase, then &, then |. */
function parse (text: string): Term | undefined {
  const list = tokens(text)
  if (list === undefined) return undefined
  let at = 0
  const peek = (): Token | undefined => list[at]
  const isOp = (token: Token | undefined, op: string): boolean => token?.kind === 'op' && token.op === op

  const primary = (): Term | undefined => {
    const token = peek()
    if (token === undefined) return undefined
    if (isOp(token, '!')) {
      at++
      const of = primary()
      return of === undefined ? undefined : { kind: 'not', of }
    }
    if (isOp(token, '(')) {
      at++
      const inner = or()
      if (inner === undefined || !isOp(peek(), ')')) return undefined
      at++
      return inner
    }
    if (token.kind === 'word') {
      at++
      return token
    }
    return undefined
  }
  const phrase = (): Term | undefined => {
    let left = primary()
    while (left !== undefined && peek()?.kind === 'phrase') {
      const { distance } = peek() as { distance: number }
      at++
      const right = primary()
      left = right === undefined ? undefined : { kind: 'phrase', left, right, distance }
    }
    return left
  }
  const chain = (op: '&' | '|', next: () => Term | undefined) => (): Term | undefined => {
    const of: Term[] = []
    for (;;) {
      const term = next()
      if (term === undefined) return undefined
      of.push(term)
      if (!isOp(peek(), op)) break
      at++
    }
    return of.length === 1 ? of[0] : { kind: op === '&' ? 'and' : 'or', of }
  }
  const and = chain('&', phrase)
  const or = chain('|', and)
  const tree = or()
  return at === list.length ? tree : undefined
}

// ---------------------------------------------------------------- simplifying

const negate = (term: Term | boolean): Term | boolean =>
  typeof term === 'boolean' ? !term : term.kind === 'not' ? term.of : { kind: 'not', of: term }

/** `term` with duplicates, contradictions and tautologies taken out: true matches every shout, false none. */
function simplify (term: Term): Term | boolean {
  switch (term.kind) {
    case 'word':
      return term
    case 'not':
      return negate(simplify(term.of))
    case 'phrase': {
      // A phrase is kept as written: its order is its meaning. A side that is always or
      // never true (a negation inside it) is left to PostgreSQL, as before.
      const left = simplify(term.left)
      const right = simplify(term.right)
      if (typeof left === 'boolean' || typeof right === 'boolean') return term
      return { ...term, left, right }
    }
    case 'and':
    case 'or': {
      const absorbing = term.kind === 'or' // true absorbs an |, false an &
      const kept = new Map<string, Term>()
      for (const child of term.of) {
        const simple = simplify(child)
        if (typeof simple === 'boolean') {
          if (simple === absorbing) return absorbing
          continue
        }
        for (const each of simple.kind === term.kind ? (simple as { of: readonly Term[] }).of : [simple]) {
          const key = serialise(each)
          if (kept.has(serialise(negate(each) as Term))) return absorbing
          kept.set(key, each)
        }
      }
      const of = [...kept.values()]
      if (of.length === 0) return !absorbing
      return of.length === 1 ? of[0]! : { kind: term.kind, of }
    }
  }
}

function wordsOf (term: Term): string[] {
  switch (term.kind) {
    case 'word': return [term.text]
    case 'not': return wordsOf(term.of)
    case 'phrase': return [...wordsOf(term.left), ...wordsOf(term.right)]
    default: return term.of.flatMap(wordsOf)
  }
}

/** The lexemes every shout `term` matches must hold. */
function requiredOf (term: Term): Set<string> {
  switch (term.kind) {
    case 'word': return new Set([term.text])
    case 'not': return new Set()
    case 'phrase': return new Set([...requiredOf(term.left), ...requiredOf(term.right)])
    case 'and': return new Set(term.of.flatMap(each => [...requiredOf(each)]))
    case 'or': {
      const [first, ...rest] = term.of.map(requiredOf)
      return new Set([...first ?? []].filter(word => rest.every(other => other.has(word))))
    }
  }
}

// ---------------------------------------------------------------- writing

/** A lexeme as tsquery text reads it back: quoted, its quotes doubled, its backslashes escaped. */
export const quoteLexeme = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`

const RANK = { or: 0, and: 1, phrase: 2, not: 3, word: 3 } as const

function serialise (term: Term): string {
  // Parentheses where PostgreSQL's precedence needs them; a phrase reads left to right, so one on its left needs none.
  const inner = (child: Term, parent: keyof typeof RANK, left = false): string =>
    RANK[child.kind] <= RANK[parent] && !(child.kind === parent && (parent !== 'phrase' || left)) ? `( ${serialise(child)} )` : serialise(child)
  switch (term.kind) {
    case 'word': return quoteLexeme(term.text)
    case 'not': return `!${term.of.kind === 'word' ? serialise(term.of) : `( ${serialise(term.of)} )`}`
    case 'phrase': return `${inner(term.left, 'phrase', true)} <${term.distance === 1 ? '-' : term.distance}> ${inner(term.right, 'phrase')}`
    default: return term.of.map(child => inner(child, term.kind)).join(term.kind === 'and' ? ' & ' : ' | ')
  }
}
