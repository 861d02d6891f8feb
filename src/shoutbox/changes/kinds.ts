import type { Reaction, RoomShout } from '../schemas.js'

/**
 * Every kind of change to the board, and, in one place, what each does to what a process
 * keeps. A new kind is a line here: the compiler then asks for it wherever a rule is
 * applied (each `switch` on a rule or a kind ends in `unhandled`), and the notice parser accepts it.
 *
 * - `carries`: what each of its stream events holds: the shout's four fields, its room and
 *   what it answers; its id and room alone (a delete names the shout and nothing of what it
 *   said); its id, room and reaction counts; or no event at all (the change is not on the stream). `member`: one member's own event, sent only on the
 *   streams that member opened, never kept in the history, and holding nothing (the page
 *   asks what changed); the notice names the member.
 * - `list`: how the kept list of the newest shouts follows it: `add` its shouts, `retext`
 *   them in place, `remove` them, leave it `unchanged`, or `rebuild` it from the database.
 * - `pinned`: how the kept list of pins follows it: `unchanged`, `remove` its shouts,
 *   `recount` their reactions (as its events carry them), or `rebuild`.
 * - `settings`: true when it changes the settings, which every process then reads again.
 * - `rooms`: true when it changes the rooms, which every process then reads again (and
 *   whose streams it closes where what they may read changed).
 */
export const CHANGE_KINDS = {
  'shout-created': { carries: 'shout', list: 'add', pinned: 'unchanged', settings: false, rooms: false },
  // The text of a pinned shout changed: its pin shows the new one.
  'shout-edited': { carries: 'shout', list: 'retext', pinned: 'rebuild', settings: false, rooms: false },
  'shout-deleted': { carries: 'id', list: 'remove', pinned: 'remove', settings: false, rooms: false },
  // A held or hidden shout put (back) on the board by staff, with its id and date: it takes
  // its place by id; a pin it had shows again.
  'shout-restored': { carries: 'shout', list: 'add', pinned: 'rebuild', settings: false, rooms: false },
  // Pins are rare, and two processes' pins may be heard in either order: read anew.
  'shout-pinned': { carries: 'shout', list: 'unchanged', pinned: 'rebuild', settings: false, rooms: false },
  'shout-unpinned': { carries: 'shout', list: 'unchanged', pinned: 'rebuild', settings: false, rooms: false },
  // A shout's reaction counts, at most one event a second per shout (reactions.ts coalesces them).
  'shout-reactions': { carries: 'reactions', list: 'unchanged', pinned: 'recount', settings: false, rooms: false },
  // A lower maxShouts cuts the list, a higher one needs shouts from the database; a lower
  // maxPinned unpins nothing.
  settings: { carries: 'nothing', list: 'rebuild', pinned: 'unchanged', settings: true, rooms: false },
  // A room made, changed or archived: its rules, its place among the others, who may read it.
  rooms: { carries: 'nothing', list: 'unchanged', pinned: 'unchanged', settings: false, rooms: true },
  // A deleted account's shouts now under `deleted user`: the kept lists are made anew (pages show it at their next load).
  'authors-renamed': { carries: 'nothing', list: 'rebuild', pinned: 'rebuild', settings: false, rooms: false },
  // A watched word added or removed: every process compiles the list anew.
  'watched-words': { carries: 'nothing', list: 'unchanged', pinned: 'unchanged', settings: false, rooms: false },
  // A mute made or lifted: the member's open pages show or hide their composer.
  'posting-changed': { carries: 'member', list: 'unchanged', pinned: 'unchanged', settings: false, rooms: false }
} as const satisfies Record<string, KindRules>

interface KindRules {
  readonly carries: 'shout' | 'id' | 'reactions' | 'member' | 'nothing'
  readonly list: 'add' | 'retext' | 'remove' | 'unchanged' | 'rebuild'
  readonly pinned: 'unchanged' | 'remove' | 'recount' | 'rebuild'
  readonly settings: boolean
  readonly rooms: boolean
}

export type ChangeKind = keyof typeof CHANGE_KINDS
export type ListRule = KindRules['list']
export type PinnedRule = KindRules['pinned']

type Carrying<What extends KindRules['carries']> = { [K in ChangeKind]: (typeof CHANGE_KINDS)[K]['carries'] extends What ? K : never }[ChangeKind]

/** The kinds of change that are on the stream, and in its history. */
export type EventKind = Carrying<'shout' | 'id' | 'reactions'>
/** The kinds of change sent to one member's own streams. */
export type MemberEventKind = Carrying<'member'>

/** A shout's reaction counts as the stream carries them (no `mine`: every reader hears the same). */
export interface ReactionCounts extends Pick<RoomShout, 'id' | 'room'> {
  readonly reactions: ReadonlyArray<Omit<Reaction, 'mine'>>
}

/**
 * One stream event: a row of the history, and what a notice carries. A created, edited,
 * pinned or unpinned shout with its four fields, its room and what it answers; a deleted
 * one by its id and room alone; a shout's reaction counts.
 */
export type ShoutEvent =
  | { readonly id: number, readonly kind: Carrying<'shout'>, readonly shout: RoomShout }
  | { readonly id: number, readonly kind: Carrying<'id'>, readonly shout: Pick<RoomShout, 'id' | 'room'> }
  | { readonly id: number, readonly kind: Carrying<'reactions'>, readonly shout: ReactionCounts }

export const CHANGE_KIND_NAMES = Object.keys(CHANGE_KINDS) as ChangeKind[]

/** The end of a `switch` on a rule or a kind: the compiler refuses one left out. */
export function unhandled (value: never): never {
  throw new Error(`not handled: ${String(value)}`)
}
