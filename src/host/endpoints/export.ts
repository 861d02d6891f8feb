import { IdParamsSchema, LoggedInApi, NoPermission, NotFound, PanelApi, StreamedAnswer, TooManyRequests, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { assertHoldsAll } from '../identity/granting.js'
import { exportUser } from '../identity/user-export.js'

const ExportSchema = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'account (no password hash), sessions, preferences, notifications, API tokens (no secrets), and each addon\'s part under its id'
})

const EXAMPLE = {
  exportedAt: 1795000900000,
  account: { id: 2, username: 'ada', email: 'ada@example.org', role: 'member', disabled: false, bot: false, createdAt: 1795000000000 },
  sessions: [{ createdAt: 1795000100000, expiresAt: 1797592100000 }],
  preferences: { sound: false, desktopNotifications: false, theme: 'system' },
  notifications: [],
  tokens: [],
  addons: { shoutbox: { shouts: [{ id: 42, room: 'general', message: 'Hello, board!', date: 1795000200000, replyTo: null }], waitingForReview: [], reactions: [], reports: [], ignored: [], readMarkers: [], mute: null } }
}

const ANSWER = okAnswer({ export: ExportSchema }, { export: EXAMPLE }, 'Everything stored about the user, as one JSON document')

/**
 * The export of `user` (asked by the caller: themself, or an administrator), logged
 * EXPORTED_USER_DATA when it starts, as a file a browser saves
 * (`shoutbox-data-<username>.json`). A heavy answer: written while it is read, at most two
 * at a time per client (the endpoints declare `heavy`, so a third is refused before
 * anything is read or logged).
 */
async function sendExport (call: SignedInCall<object, HostContext>, user: { id: number, username: string }): Promise<StreamedAnswer> {
  const { ctx } = call
  const data = await exportUser(ctx.db, ctx.identity.tokens, ctx.addons, user.id, call.viewer)
  if (data === undefined) throw new NotFound()
  await ctx.activityLog.write({ type: 'EXPORTED_USER_DATA', user: call.user, details: { user: user.username, targetUserId: user.id } })
  call.reply.header('content-disposition', `attachment; filename="shoutbox-data-${user.username.replace(/[^A-Za-z0-9_-]/g, '_')}.json"`)
  // Someone's personal data: kept by no cache on the way.
  call.reply.header('cache-control', 'private, no-store')
  return new StreamedAnswer({ export: data })
}

/** GET /api/users/me/export — everything stored about the caller. Logged EXPORTED_USER_DATA. */
export class ExportOwnData extends LoggedInApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/users/me/export'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly heavy = true
  override readonly answers = { ok: ANSWER, errors: [TooManyRequests] }

  handle (call: SignedInCall<object, HostContext>): Promise<StreamedAnswer> {
    return sendExport(call, call.user)
  }
}

const UserSchema = { params: IdParamsSchema }

/** GET /api/panel/users/:id/export — the same, of a user the caller manages (one whose role's permissions the caller holds). */
export class ExportUserData extends PanelApi<typeof UserSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/users/:id/export'
  readonly schema = UserSchema
  override readonly closedToTokens = true
  override readonly heavy = true
  override readonly answers = { ok: ANSWER, errors: [NoPermission, NotFound, TooManyRequests] }

  async handle (call: SignedInCall<typeof UserSchema, HostContext>): Promise<StreamedAnswer> {
    call.requirePermission('MANAGE_USERS')
    const { ctx } = call
    const target = await ctx.identity.users.sessionUser(Number(call.params.id))
    if (target === undefined) throw new NotFound()
    assertHoldsAll(call.user, target.permissions)
    return sendExport(call, target)
  }
}
