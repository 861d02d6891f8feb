import { BadRequest, type AddonContext } from '../../sdk/index.js'
import { NameTaken, WatchedWord } from '../errors.js'
import { assertStorable } from '../message.js'
import { nameSkeleton } from '../watched-words.js'
import { WatchedWords } from '../word-list.js'

/** A guest's name: 2–24 code points, once trimmed. */
export const GUEST_NAME_MIN = 2
export const GUEST_NAME_MAX = 24

/** The letters a username may hold (the host's rule: `A–Z a–z 0–9 _ -`, compared in lower case). */
const USERNAME_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789_-'

/**
 * How a username's letters become their skeleton, as pairs to replace in turn in its lower
 * case (`m` → `rn`, `0` → `o`, `1` → `l`, `_` and `-` → nothing): the database folds every
 * username this way and compares it with a guest's name's skeleton, in one statement.
 */
const USERNAME_FOLD: ReadonlyArray<readonly [string, string]> = [...USERNAME_LETTERS]
  .map(letter => [letter, nameSkeleton(letter)] as const)
  .filter(([letter, skeleton]) => letter !== skeleton)

/** Names no guest takes: what the board writes for an erased member. */
const RESERVED = new Set(['deleted user'].map(nameSkeleton))

/**
 * A guest's name, trimmed: 400 BAD_REQUEST for one too short or long, that PostgreSQL
 * cannot store, or with nothing visible in it; 400 NAME_TAKEN for one that looks like a
 * member's username (the same skeleton as the watched words use: case, marks, look-alike
 * letters of any script, invisible characters and separators aside — `Ad_m1n`, `ＡＤＭＩＮ`
 * and `аdmin` in Cyrillic all pass for `admin`), disabled accounts' too, or like the
 * board's own words; 400 WATCHED_WORD for a blocked word in it.
 */
export async function guestName (ctx: AddonContext, given: string): Promise<string> {
  assertStorable(given, 'body/name')
  const name = given.trim().replace(/\s+/gu, ' ')
  const length = [...name].length
  if (length < GUEST_NAME_MIN || length > GUEST_NAME_MAX) throw new BadRequest({ bodyValidationError: `body/name must be ${GUEST_NAME_MIN}–${GUEST_NAME_MAX} characters` })
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name)) throw new BadRequest({ bodyValidationError: 'body/name must not hold control or invisible characters' })
  const skeleton = nameSkeleton(name)
  if (skeleton.length < GUEST_NAME_MIN) throw new BadRequest({ bodyValidationError: `body/name needs at least ${GUEST_NAME_MIN} letters or digits` })
  if (RESERVED.has(skeleton) || await ctx.users.usernameFolded(USERNAME_FOLD, skeleton)) throw new NameTaken()
  if ((await WatchedWords.of(ctx).filter()).check(name).action === 'block') throw new WatchedWord()
  return name
}
