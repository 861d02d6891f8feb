import { BadRequest } from '../sdk/index.js'

/** A message longer than `maxMessageLength` code points → MESSAGE_TOO_LONG, 400. */
export class MessageTooLong extends BadRequest {
  constructor (maxMessageLength: number) {
    super({ maxMessageLength })
  }
}
