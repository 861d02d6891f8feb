import { Api, TooManyRequests, Type, eventStreamAnswer, type PublicCall } from '../../sdk/index.js'
import { StreamHub } from '../stream-hub.js'

const StreamSchema = {
  // For clients that cannot set the Last-Event-ID header.
  querystring: Type.Object({ lastEventId: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })) })
}

/**
 * GET /api/shoutbox/stream — public Server-Sent Events: `shout-created` with the shout
 * as the list shows it, `shout-deleted` with its id alone; `Last-Event-ID` resumes after
 * a reconnect, on any host process. A stream opened signed in also hears
 * `posting-changed` (no id, `{}`) when that member is muted or their mute is lifted.
 */
export class StreamShouts extends Api<typeof StreamSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/stream'
  readonly schema = StreamSchema
  // A member's own events go to the streams they opened.
  override readonly readsSession = true
  override readonly answers = {
    ok: eventStreamAnswer('Server-Sent Events: `shout-created` and `shout-edited` with the shout, `shout-deleted` with its id',
      'id: 43\nevent: shout-created\ndata: {"id":42,"message":"Hello","username":"ada","date":1795000000000}\n\n'),
    errors: [TooManyRequests]
  }

  async handle ({ ctx, headers, query, user, openEventStream }: PublicCall<typeof StreamSchema>): Promise<void> {
    const header = headers['last-event-id']
    const raw = typeof header === 'string' && /^[0-9]{1,15}$/.test(header) ? header : query.lastEventId
    await StreamHub.of(ctx).subscribe(openEventStream(), raw === undefined ? undefined : Number(raw), user?.id)
  }
}
