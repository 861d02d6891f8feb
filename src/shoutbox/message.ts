import { BadRequest, UNSTORABLE_TEXT, isBlankText, isStorableText } from '../sdk/index.js'
import { MessageTooLong } from './errors.js'

/** Checks a message to publish; it is stored exactly as sent, never trimmed. */
export function assertPublishable (message: string, maxMessageLength: number): void {
  if (isBlankText(message)) throw new BadRequest({ bodyValidationError: 'body/message must not be empty or only whitespace' })
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
