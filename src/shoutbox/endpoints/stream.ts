import { Api, TooManyRequests, Type, eventStreamAnswer, type PublicCall } from '../../sdk/index.js'
import { SLUG_PATTERN } from '../schemas.js'
import { StreamHub } from '../stream-hub.js'

const StreamSchema = {
  // For clients that cannot set the Last-Event-ID header.
  querystring: Type.Object({
    lastEventId: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
    /** Rooms to hear, by slug, comma-separated; every room the reader may read when absent. */
    rooms: Type.Optional(Type.String({ maxLength: 2000 })),
    /** The room the page shows: presence counts the reader there alone (and tells it of that room alone). */
    showing: Type.Optional(Type.String({ pattern: SLUG_PATTERN }))
  })
}

/**
 * GET /api/shoutbox/stream?rooms=a,b — public Server-Sent Events: `shout-created` with
 * the shout and its room, `shout-deleted` with its id and room alone; `Last-Event-ID`
 * resumes after a reconnect, on any host process. A stream hears the rooms its reader may
 * read when it opens (of those named in `rooms`; names it may not read are passed over
 * as unknown ones); a change of its reader's role or of a room's readers closes it.
 * `showing=<slug>` names the room the page shows: who is here counts the reader in that
 * room alone, and its `presence` events are that room's (without it: every room the
 * stream hears). A stream opened signed in also hears `posting-changed` (no id, `{}`) when that member is
 * muted or their mute is lifted. A stream opened with an API token hears what the token
 * may read, for its whole life. A client that replays more than REPLAYS_PER_MINUTE times a
 * minute is answered `reset` instead of the events it missed.
 */
export class StreamShouts extends Api<typeof StreamSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/stream'
  readonly schema = StreamSchema
  // A member's own events go to the streams they opened.
  override readonly readsSession = true
  override readonly answers = {
    ok: eventStreamAnswer('Server-Sent Events: `shout-created`, `shout-restored` (a held or hidden shout approved: in its place by id), `shout-edited`, `shout-pinned` and `shout-unpinned` with the shout (what it answers, not its reactions), ' +
      '`shout-deleted` with its id and room, `shout-reactions` with its id, room and counts (at most once a second per shout)',
      'id: 43\nevent: shout-created\ndata: {"id":42,"message":"Hello","username":"ada","date":1795000000000,"room":"general","replyTo":null}\n\n'),
    errors: [TooManyRequests]
  }

  async handle ({ ctx, headers, query, viewer, ip, openEventStream }: PublicCall<typeof StreamSchema>): Promise<void> {
    const header = headers['last-event-id']
    const raw = typeof header === 'string' && /^[0-9]{1,15}$/.test(header) ? header : query.lastEventId
    const asked = query.rooms === undefined ? undefined : new Set(query.rooms.split(',').map(slug => slug.trim()).filter(slug => slug !== ''))
    const hub = StreamHub.of(ctx)
    const stream = openEventStream()
    // Past REPLAYS_PER_MINUTE replays, a reconnect is told `reset` and loads the list again.
    await hub.subscribe(stream, raw === undefined ? undefined : Number(raw), viewer, { asked, showing: query.showing, replay: raw === undefined || hub.replays.take(ip) })
  }
}
