import { BadRequest } from '../sdk/index.js'
import { MessageTooLong } from './errors.js'

const BLANK = /^[\s\p{White_Space}]*$/u
// PostgreSQL text cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what must be refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Checks a message to publish; it is stored exactly as sent, never trimmed. */
export function assertPublishable (message: string, maxMessageLength: number): void {
  if (BLANK.test(message)) throw new BadRequest({ bodyValidationError: 'body/message must not be empty or only whitespace' })
  if (UNSTORABLE.test(message)) {
    throw new BadRequest({ bodyValidationError: 'body/message must not contain U+0000 or an unpaired surrogate' })
  }
  if (codePoints(message) > maxMessageLength) throw new MessageTooLong(maxMessageLength)
}

/** Any other text a person writes (a mute's reason, a search): what PostgreSQL cannot store is a bad request. `field` names it as validation does (`body/reason`). */
export function assertStorable (text: string, field: string): void {
  if (UNSTORABLE.test(text)) throw new BadRequest({ bodyValidationError: `${field} must not contain U+0000 or an unpaired surrogate` })
}

function codePoints (text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
