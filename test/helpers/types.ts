/**
 * Types the tests and their helpers share, each declared once. (`App`, what `build()`
 * returns, is in ./app.js; the stream's `SseEvent` in ./sse.js.)
 */

/** The part of tap's test object the helpers use: somewhere to hang a clean-up. */
export interface Tap {
  teardown (fn: () => unknown): void
}

/** A shout as GET /api/shoutbox/list (the seed's list) shows it: exactly four fields. */
export type { Shout } from '../../src/shoutbox/schemas.js'

/** A shout as the stream shows it: the list's four fields, then its room (CONTRACT §15) and the shout it answers (§16). */
export type { RoomShout } from '../../src/shoutbox/schemas.js'

/** A shout as every answer but the seed's list shows it: as the stream, then its reactions (CONTRACT §16). */
export type { FullShout } from '../../src/shoutbox/schemas.js'

/** One entry of GET /api/panel/logs/activity. */
export type { RenderedEntry as FeedEntry } from '../../src/host/services/activity-log.js'

/** One event the greeter fixture's listeners recorded (GET /api/greeter/events), oldest first. */
export interface RecordedEvent {
  readonly event: string
  readonly payload: unknown
  readonly committed: boolean | null
}
