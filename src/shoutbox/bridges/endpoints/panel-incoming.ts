import { BadRequest, Conflict, IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, Type, UNSTORABLE_TEXT, isBlankText, isStorableText, okAnswer, type SignedInCall } from '../../../sdk/index.js'
import { RoomArchived } from '../../errors.js'
import { canRead, Rooms, type Room } from '../../rooms.js'
import { SLUG_PATTERN } from '../../schemas.js'
import { incomingHooksRepository, type IncomingHook } from '../hooks-repository.js'

/** The host's node for webhooks, incoming ones included. */
const MANAGE_WEBHOOKS = 'panel.manage.webhooks'
/** More hooks than a site needs would only be more secrets to lose. */
const MAX_INCOMING_HOOKS = 50
const MAX_NAME = 64

const HookSchema = Type.Object({
  id: Type.Integer(),
  room: Type.String({ description: "the room's slug: the one room it posts into" }),
  name: Type.String({ description: 'what its shouts show as `via`' })
}, { additionalProperties: false })
const EXAMPLE = { id: 3, room: 'general', name: 'Discord #lobby' }

function requireManage (call: SignedInCall<object>): void {
  if (!call.viewer.holds(MANAGE_WEBHOOKS)) throw new NoPermission()
}

/** Hooks of rooms the caller may read (a hook of another room is as none), answered with their rooms' slugs. */
async function readable (call: SignedInCall<object>, hooks: readonly IncomingHook[]): Promise<Array<{ hook: IncomingHook, room: Room }>> {
  const rooms = await Rooms.of(call.ctx).all()
  return hooks.flatMap(hook => {
    const room = rooms.find(each => each.id === hook.roomId)
    return room !== undefined && canRead(room, call.viewer) ? [{ hook, room }] : []
  })
}

const shown = ({ hook, room }: { hook: IncomingHook, room: Room }) => ({ id: hook.id, room: room.slug, name: hook.name })

/** The hook's URL: PUBLIC_URL, else the origin the panel was reached at. Shown once. */
function hookUrl (call: SignedInCall<object>, id: number, secret: string): string {
  const host = typeof call.headers.host === 'string' ? call.headers.host : 'localhost'
  const origin = call.ctx.publicUrl ?? `${call.protocol}://${host}`
  return `${origin.replace(/\/$/, '')}/hooks/incoming/${id}/${secret}`
}

/** GET /api/panel/shoutbox/incoming — the incoming hooks of the rooms the caller may read (never their secrets). */
export class ListIncomingHooks extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/incoming'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({ hooks: Type.Array(HookSchema) }, { hooks: [EXAMPLE] }), errors: [NoPermission] }

  async handle (call: SignedInCall): Promise<Successful> {
    requireManage(call)
    return new Successful({ hooks: (await readable(call, await incomingHooksRepository(call.ctx.db).list())).map(shown) })
  }
}

const CreateSchema = {
  body: Type.Object({
    room: Type.String({ pattern: SLUG_PATTERN, description: "the room's slug: the hook posts there and nowhere else" }),
    name: Type.String({ minLength: 1, maxLength: MAX_NAME * 2, description: `shown on its shouts as \`via\` (at most ${MAX_NAME} characters)` })
  }, { additionalProperties: false })
}

/**
 * POST /api/panel/shoutbox/incoming — a new incoming hook for a room the caller may read
 * (any other is 404, as one that does not exist; an archived one 409 ROOM_ARCHIVED). Its
 * URL, secret included, is in this answer only. Logged CREATED_INCOMING_HOOK.
 */
export class CreateIncomingHook extends PanelApi<typeof CreateSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox/incoming'
  readonly schema = CreateSchema
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({
      hook: HookSchema,
      url: Type.String({ description: 'where another tool posts: `{PUBLIC_URL}/hooks/incoming/<id>/<secret>`; shown this once (only a hash of the secret is kept)' })
    }, { hook: EXAMPLE, url: 'https://shouts.example.org/hooks/incoming/3/q0Vh1Jr2m8YbXo4kZ7nC5eT9uW3sA6dF1gH2jK4lM0p' }),
    errors: [BadRequest, NoPermission, NotFound, RoomArchived, Conflict]
  }

  async handle (call: SignedInCall<typeof CreateSchema>): Promise<Successful> {
    requireManage(call)
    const { ctx, body, user } = call
    const name = body.name.trim()
    if (isBlankText(name)) throw new BadRequest({ bodyValidationError: 'body/name must not be empty or only whitespace' })
    if (!isStorableText(name)) throw new BadRequest({ bodyValidationError: `body/name ${UNSTORABLE_TEXT}` })
    if ([...name].length > MAX_NAME) throw new BadRequest({ bodyValidationError: `body/name must not be longer than ${MAX_NAME} characters` })
    const room = await Rooms.of(ctx).readableBySlug(body.room, call.viewer)
    if (room.archived) throw new RoomArchived()
    const made = await ctx.transaction(async trx => {
      const hooks = incomingHooksRepository(ctx.db)
      await hooks.lockForAdd(trx)
      if (await hooks.count(trx) >= MAX_INCOMING_HOOKS) throw new Conflict({ reason: `at most ${MAX_INCOMING_HOOKS} incoming hooks` })
      const created = await hooks.create({ roomId: room.id, name, createdBy: user.id }, trx)
      await ctx.activityLog.write({ type: 'CREATED_INCOMING_HOOK', user, details: { hookId: created.hook.id, name, room: room.slug } }, trx)
      return created
    })
    return new Successful({ hook: shown({ hook: made.hook, room }), url: hookUrl(call, made.hook.id, made.secret) })
  }
}

const RemoveSchema = { params: IdParamsSchema }

/**
 * DELETE /api/panel/shoutbox/incoming/:id — the hook goes: its URL answers from now on
 * as one that never was (the shouts it posted stay). A hook of a room the caller may not
 * read is 404, as none. Logged DELETED_INCOMING_HOOK.
 */
export class DeleteIncomingHook extends PanelApi<typeof RemoveSchema> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/shoutbox/incoming/:id'
  readonly schema = RemoveSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof RemoveSchema>): Promise<Successful> {
    requireManage(call)
    const { ctx, user } = call
    const hooks = incomingHooksRepository(ctx.db)
    const found = await hooks.find(Number(call.params.id))
    const [visible] = found === undefined ? [] : await readable(call, [found])
    if (visible === undefined) throw new NotFound()
    await ctx.transaction(async trx => {
      const deleted = await hooks.delete(visible.hook.id, trx)
      if (deleted === undefined) throw new NotFound()
      await ctx.activityLog.write({ type: 'DELETED_INCOMING_HOOK', user, details: { hookId: deleted.id, name: deleted.name, room: visible.room.slug } }, trx)
    })
    return new Successful({})
  }
}
