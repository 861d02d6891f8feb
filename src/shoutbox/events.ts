import { defineEvent } from '../sdk/index.js'
import type { RoomShout } from './schemas.js'

/*
 * Other addons hear every room's shouts, with the room's slug: they run on the server,
 * trusted as the addon itself is; one that shows shouts to people must ask who may read
 * the room (GET /api/shoutbox/rooms answers it for a session).
 */

/** Emitted after the publishing transaction committed. */
export const ShoutCreated = defineEvent<RoomShout>('shoutbox.shout-created')
/** Emitted after the editing transaction committed: the shout with its new text. */
export const ShoutEdited = defineEvent<RoomShout>('shoutbox.shout-edited')
/** Emitted after the deleting transaction committed. */
export const ShoutDeleted = defineEvent<RoomShout>('shoutbox.shout-deleted')
