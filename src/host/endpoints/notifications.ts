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

/**
 * GET /api/notifications?before=&limit= — the caller's notifications, newest first, and how
 * many are unread: of those they may be shown now (a mention in a room they may no longer
 * read, or read only through a permission their token lacks, is neither listed nor counted).
 */
export class ListNotifications extends LoggedInApi<typeof ListSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/notifications'
  readonly schema = ListSchema
  override readonly answers = {
    ok: okAnswer({ notifications: Type.Array(NotificationSchema, { description: 'newest first' }), unread: Type.Integer({ minimum: 0 }) }, { notifications: [EXAMPLE], unread: 1 })
  }

  async handle ({ ctx, query, user, viewer }: SignedInCall<typeof ListSchema, HostContext>): Promise<Successful> {
    return new Successful(await ctx.notificationCenter.page(user.id, await ctx.addons.visibleNotifications(viewer), query.before === undefined ? undefined : Number(query.before), query.limit))
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

  async handle ({ ctx, body, user, viewer }: SignedInCall<typeof ReadSchema, HostContext>): Promise<Successful> {
    if ('all' in body && !body.all) throw new BadRequest({ reason: 'all: true, or the ids' })
    return new Successful({ unread: await ctx.notificationCenter.markRead(user.id, await ctx.addons.visibleNotifications(viewer), 'ids' in body ? body.ids : 'all') })
  }
}

/**
 * GET /api/notifications/stream — Server-Sent Events for the caller alone, from every
 * process: `ready` {unread} first, then `notification` {notification, unread},
 * `notifications-removed` {ids, unread} and `notifications-read` {unread}. Not replayed:
 * a page that reconnects reads the list again. It ends with the session (or token) that
 * opened it. Each event is decided for the stream's reader when it comes, with the rights
 * of the credential that opened it as they are then: a notification they may not be shown
 * is left out, and every unread count is theirs.
 */
export class NotificationStream extends LoggedInApi<Record<string, never>, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/notifications/stream'
  readonly schema = {}
  override readonly answers = {
    ok: eventStreamAnswer('Server-Sent Events of the caller\'s notifications: `ready`, `notification`, `notifications-removed`, `notifications-read`',
      `event: notification\ndata: ${JSON.stringify({ notification: EXAMPLE, unread: 1 })}\n\n`)
  }

  async handle ({ ctx, user, viewer, openEventStream }: SignedInCall<Record<string, never>, HostContext>): Promise<void> {
    const stream = openEventStream()
    const center = ctx.notificationCenter
    const write = (event: string, data: unknown): void => { if (!stream.closed) stream.write(new EventFrame(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) }
    // One event after the other, each decided as the reader's rights are when it comes.
    let turn = Promise.resolve()
    const stop = center.listen(user.id, event => {
      turn = turn.then(async () => {
        const now = await viewer.renewed()
        // Signed out or revoked meanwhile: the host ends the stream; nothing more is told.
        if (!now.isMember()) return
        const visible = await ctx.addons.visibleNotifications(now)
        if (event.event === 'notification' && !visible.shows(event.notification)) return
        const unread = await center.unread(user.id, visible)
        if (event.event === 'notification') write(event.event, { notification: event.notification, unread })
        else if (event.event === 'notifications-removed') write(event.event, { ids: event.ids, unread })
        else write(event.event, { unread })
      }).catch(error => {
        ctx.log.warn({ err: error }, 'could not tell a notification stream')
        stream.end()
      })
    })
    stream.onClose(stop)
    write('ready', { unread: await center.unread(user.id, await ctx.addons.visibleNotifications(viewer)) })
  }
}
