import { defineEvent } from '../sdk/index.js'
import type { Shout } from './schemas.js'

/** Emitted after the publishing transaction committed. */
export const ShoutCreated = defineEvent<Shout>('shoutbox.shout-created')
/** Emitted after the editing transaction committed: the shout with its new text. */
export const ShoutEdited = defineEvent<Shout>('shoutbox.shout-edited')
/** Emitted after the deleting transaction committed. */
export const ShoutDeleted = defineEvent<Shout>('shoutbox.shout-deleted')
