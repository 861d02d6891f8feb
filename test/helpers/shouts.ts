/**
 * The shapes a shout takes in the answers and on the stream (CONTRACT §15, §16), for
 * tests that build what they expect from the list's four fields or from stored rows.
 */
import type { FullShout, RoomShout, Shout } from './types.js'

/** The reactions a site starts with, in their order (CONTRACT §16: the setting `reactions`). */
export const DEFAULT_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🎉']

/** The moderation settings a site starts with (CONTRACT §17): three reports hide a shout, nobody's shouts held, ten refusals in ten minutes mute for 30; guests' shouts held, their proof at 20,000; direct messages on (§27); pictures up to 5 MiB, a newcomer's held (§28). */
export const MODERATION_DEFAULTS = { hideAfterReports: 3, reportMinAccountAgeHours: 24, holdFirstShouts: 0, autoMuteAfter: 10, autoMuteMinutes: 30, guestProofCost: 20_000, holdGuestShouts: true, directMessages: true, maxUploadBytes: 5_242_880, holdUploads: true }

/** The keys of a shout on the stream, in order: the list's four, its room, the shout it answers. */
export const STREAMED_KEYS = ['id', 'message', 'username', 'date', 'room', 'replyTo']

/** The keys of a shout in every answer but the seed's list, in order: as on the stream, then its reactions. */
export const ANSWERED_KEYS = [...STREAMED_KEYS, 'reactions']

/**
 * A shout of `room` that answers none, as the stream carries it: the list's four fields
 * (a stored row's, or the list's), then its room, then `replyTo: null`.
 */
export function streamed ({ id, message, username, date }: Shout, room = 'general'): RoomShout {
  return { id, message, username, date, room, replyTo: null }
}

/** A shout of `room` that answers none and has no reactions, as every answer but the seed's list shows it. */
export function answered (shout: Shout, room = 'general'): FullShout {
  return { ...streamed(shout, room), reactions: [] }
}

/** An answered shout as the stream carries it: its reactions left out (they come as `shout-reactions` events). */
export function withoutReactions ({ reactions: _, ...shout }: FullShout): RoomShout {
  return shout
}
