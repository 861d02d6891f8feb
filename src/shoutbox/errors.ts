import { BadRequest, Conflict, NoPermission } from '../sdk/index.js'

/** A message longer than `maxMessageLength` code points → MESSAGE_TOO_LONG, 400. */
export class MessageTooLong extends BadRequest {
  constructor (maxMessageLength: number) {
    super({ maxMessageLength })
  }
}

/** A pin beyond `maxPinned` → TOO_MANY_PINNED, 409: unpin one first. */
export class TooManyPinned extends Conflict {
  constructor (maxPinned: number) {
    super({ maxPinned })
  }
}

/** The same text as the author's previous shout, again within a minute → DUPLICATE_SHOUT, 409. */
export class DuplicateShout extends Conflict {}

/** Editing one's own shout after `editWindowSeconds` → EDIT_WINDOW_CLOSED, 403. */
export class EditWindowClosed extends NoPermission {}

/** A muted member posting or editing → MUTED, 403, with `until` (ms since the epoch, or null: until lifted). */
export class Muted extends NoPermission {
  constructor (until: number | null) {
    super({ until })
  }
}

/** Posting or editing in an archived room → ROOM_ARCHIVED, 409: its history is kept, read-only. */
export class RoomArchived extends Conflict {}

/** An ignore list of MAX_IGNORED already → IGNORE_LIST_FULL, 409, with `max`. */
export class IgnoreListFull extends Conflict {
  constructor (max: number) {
    super({ max })
  }
}

/** A member's shout holding a watched word whose action is `block` → WATCHED_WORD, 400 (which word is not said). */
export class WatchedWord extends BadRequest {}

/** A watched word whose skeleton is already watched (`FREE` when `free` is) → WATCHED_WORD_EXISTS, 409, with its `id`. */
export class WatchedWordExists extends Conflict {
  constructor (id: number) {
    super({ id })
  }
}

/** A second open report of one shout by one member → ALREADY_REPORTED, 409. */
export class AlreadyReported extends Conflict {}

/** A room's slug already in use → ROOM_SLUG_TAKEN, 409. */
export class RoomSlugTaken extends Conflict {}

/** The default room cannot be archived, nor stop being readable by everyone → DEFAULT_ROOM, 409. */
export class DefaultRoom extends Conflict {}

/** A guest's name that would pass for a member's (the same skeleton as a username) → NAME_TAKEN, 400. */
export class NameTaken extends BadRequest {}

/** A guest's proof of work that is forged, expired, already used or not one at all → INVALID_PROOF, 400: ask for a new challenge. */
export class InvalidProof extends BadRequest {}
