import { BadRequest, UNSTORABLE_TEXT, isStorableText } from '../sdk/index.js'
import { MessageTooLong } from './errors.js'

const BLANK = /^[\s\p{White_Space}]*$/u

/** Checks a message to publish; it is stored exactly as sent, never trimmed. */
export function assertPublishable (message: string, maxMessageLength: number): void {
  if (BLANK.test(message)) throw new BadRequest({ bodyValidationError: 'body/message must not be empty or only whitespace' })
  if (!isStorableText(message)) throw new BadRequest({ bodyValidationError: `body/message ${UNSTORABLE_TEXT}` })
  if (codePoints(message) > maxMessageLength) throw new MessageTooLong(maxMessageLength)
}

/** Any other text a person writes (a mute's reason, a search): what PostgreSQL cannot store is a bad request. `field` names it as validation does (`body/reason`). */
export function assertStorable (text: string, field: string): void {
  if (!isStorableText(text)) throw new BadRequest({ bodyValidationError: `${field} ${UNSTORABLE_TEXT}` })
}

function codePoints (text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
