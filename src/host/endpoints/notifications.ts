import { BadRequest, EventFrame, LoggedInApi, Successful, Type, eventStreamAnswer, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { MAX_PAGE } from '../services/notifications.js'

const NotificationSchema = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: 'what it says, for its addon: "mention" (the shoutbox)' }),
  addonId: Type.String(),
  data: Type.Object({}, { additionalProperties: true, description: "the kind's own fields; a mention: {shoutId, room, by, excerpt}" }),
  createdAt: Type.Integer({ description: 'ms since the Unix epoch' }),
  read: Type.Boolean()
}, { additionalProperties: false })

const EXAMPLE = { id: 7, kind: 'mention', addonId: 'shoutbox', data: { shoutId: 42, room: 'general', by: 'ada', excerpt: '@bora are you coming?' }, createdAt: 1795000000000, read: false }

const ListSchema = {
  querystring: Type.Object({
    /** A notification id: the page holds older ones. */
    before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
    limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 20 })
  })
}

/** GET /api/notifications?before=&limit= — the caller's notifications, newest first, and how many are unread. */
export class ListNotifications extends LoggedInApi<typeof ListSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/notifications'
  readonly schema = ListSchema
  override readonly answers = {
    ok: okAnswer({ notifications: Type.Array(NotificationSchema, { description: 'newest first' }), unread: Type.Integer({ minimum: 0 }) }, { notifications: [EXAMPLE], unread: 1 })
  }

  async handle ({ ctx, query, user }: SignedInCall<typeof ListSchema, HostContext>): Promise<Successful> {
    return new Successful(await ctx.notificationCenter.page(user.id, query.before === undefined ? undefined : Number(query.before), query.limit))
  }
}

const ReadSchema = {
  body: Type.Union([
    Type.Object({ ids: Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
    Type.Object({ all: Type.Boolean({ description: 'true: every one; false is refused' }) }, { additionalProperties: false })
  ])
}

/** POST /api/notifications/read {ids} or {all: true} — marks the caller's notifications read (another user's ids are passed over); answers the unread count. */
export class MarkNotificationsRead extends LoggedInApi<typeof ReadSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/notifications/read'
  readonly schema = ReadSchema
  override readonly answers = { ok: okAnswer({ unread: Type.Integer({ minimum: 0 }) }, { unread: 0 }), errors: [BadRequest] }

  async handle ({ ctx, body, user }: SignedInCall<typeof ReadSchema, HostContext>): Promise<Successful> {
    if ('all' in body && !body.all) throw new BadRequest({ reason: 'all: true, or the ids' })
    return new Successful({ unread: await ctx.notificationCenter.markRead(user.id, 'ids' in body ? body.ids : 'all') })
  }
}

/**
 * GET /api/notifications/stream — Server-Sent Events for the caller alone, from every
 * process: `ready` {unread} first, then `notification` {notification, unread},
 * `notifications-removed` {ids, unread} and `notifications-read` {unread}. Not replayed:
 * a page that reconnects reads the list again. It ends with the session that opened it.
 */
export class NotificationStream extends LoggedInApi<Record<string, never>, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/notifications/stream'
  readonly schema = {}
  override readonly answers = {
    ok: eventStreamAnswer('Server-Sent Events of the caller\'s notifications: `ready`, `notification`, `notifications-removed`, `notifications-read`',
      `event: notification\ndata: ${JSON.stringify({ notification: EXAMPLE, unread: 1 })}\n\n`)
  }

  async handle ({ ctx, user, openEventStream }: SignedInCall<Record<string, never>, HostContext>): Promise<void> {
    const stream = openEventStream()
    const center = ctx.notificationCenter
    const stop = center.listen(user.id, ({ event, ...data }) => stream.write(new EventFrame(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)))
    stream.onClose(stop)
    stream.write(new EventFrame(`event: ready\ndata: ${JSON.stringify({ unread: await center.unread(user.id) })}\n\n`))
  }
}
