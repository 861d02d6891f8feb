import { BadRequest, Conflict } from '../sdk/index.js'

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
