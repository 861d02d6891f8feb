import { BadRequest, NoPermission, NotFound, PanelApi, Successful, Type, IdParamsSchema, okAnswer, type AddonContext, type SignedInCall, type Transaction } from '../../sdk/index.js'
import { announceChange } from '../changes/notice.js'
import { DefaultRoom, RoomSlugTaken } from '../errors.js'
import { assertStorable } from '../message.js'
import { GENERAL_ROOM_ID, POST_NODE, roomsRepository, type Room, type RoomChanges } from '../rooms.js'
import { SLUG_PATTERN } from '../schemas.js'

/** A permission node as roles hold them (`addon.shoutbox.room.staff.read`), or a host node (`panel.access`). */
const NODE_PATTERN = '^[a-z0-9_-]+(\\.[a-zA-Z0-9_-]+)*$'
const NodeSchema = Type.String({ pattern: NODE_PATTERN, maxLength: 200 })
const ReadSchema = Type.String({ pattern: `^everyone$|^signed-in$|${NODE_PATTERN}`, maxLength: 200, description: '"everyone", "signed-in" or a permission node' })
const NameSchema = Type.String({ minLength: 1, maxLength: 60 })
const DescriptionSchema = Type.String({ maxLength: 500 })
const PositionSchema = Type.Integer({ minimum: 0, maximum: 1_000_000 })
const GuestsPostSchema = Type.Boolean({ description: 'guests (no account) may post: only in a room everyone reads' })
const SlowModeSchema = Type.Integer({ minimum: 0, maximum: 3600, description: '0: the board\'s own minSecondsBetweenShouts applies; larger wins' })

/** A room as the panel shows it: every field. */
const PanelRoomSchema = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  read: Type.String(),
  post: Type.String(),
  position: Type.Integer(),
  archived: Type.Boolean(),
  slowModeSeconds: Type.Integer(),
  guestsPost: Type.Boolean()
}, { additionalProperties: false })

const ROOM_EXAMPLE: Room = {
  id: 2, slug: 'staff', name: 'Staff', description: 'For the team', read: 'panel.access', post: 'panel.access', position: 1, archived: false, slowModeSeconds: 0, guestsPost: false
}

const CreateRoomSchema = {
  body: Type.Object({
    slug: Type.String({ pattern: SLUG_PATTERN }),
    name: NameSchema,
    description: Type.Optional(DescriptionSchema),
    read: Type.Optional(ReadSchema),
    post: Type.Optional(NodeSchema),
    position: Type.Optional(PositionSchema),
    slowModeSeconds: Type.Optional(SlowModeSchema),
    guestsPost: Type.Optional(GuestsPostSchema)
  })
}

const UpdateRoomSchema = {
  params: IdParamsSchema,
  body: Type.Object({
    name: Type.Optional(NameSchema),
    description: Type.Optional(DescriptionSchema),
    read: Type.Optional(ReadSchema),
    post: Type.Optional(NodeSchema),
    position: Type.Optional(PositionSchema),
    archived: Type.Optional(Type.Boolean()),
    slowModeSeconds: Type.Optional(SlowModeSchema),
    guestsPost: Type.Optional(GuestsPostSchema)
  }, { minProperties: 1 })
}

const RoomIdSchema = { params: IdParamsSchema }

/** A name that is not only white space, trimmed, and one PostgreSQL can store. */
function roomName (name: string): string {
  assertStorable(name, 'body/name')
  const trimmed = name.trim()
  if (trimmed === '') throw new BadRequest({ bodyValidationError: 'body/name must not be blank' })
  return trimmed
}

/** A room's changes as given, with a name and a description PostgreSQL can store. */
function roomChanges<T extends { name?: string, description?: string }> (body: T): T {
  if (body.description !== undefined) assertStorable(body.description, 'body/description')
  return body.name === undefined ? body : { ...body, name: roomName(body.name) }
}

/**
 * GET /api/panel/shoutbox/rooms — every room, archived ones too, by position, with who
 * may read and post in it and its slow mode (MANAGE_SHOUTBOX).
 */
export class PanelRooms extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/rooms'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = { ok: okAnswer({ rooms: Type.Array(PanelRoomSchema) }, { rooms: [ROOM_EXAMPLE] }), errors: [NoPermission] }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    return new Successful({ rooms: await roomsRepository(call.ctx.db).all() })
  }
}

/**
 * POST /api/panel/shoutbox/rooms — makes a room (MANAGE_SHOUTBOX), placed last unless a
 * position is given; read by everyone and posted in with POST_SHOUTS unless it says
 * otherwise. Logged CREATED_ROOM; every process's rooms follow at once.
 */
export class CreateRoom extends PanelApi<typeof CreateRoomSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox/rooms'
  override readonly closedToTokens = true
  readonly schema = CreateRoomSchema
  override readonly answers = { ok: okAnswer({ room: PanelRoomSchema }, { room: ROOM_EXAMPLE }), errors: [NoPermission, RoomSlugTaken] }

  async handle (call: SignedInCall<typeof CreateRoomSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, body } = call
    const room = await ctx.transaction(async trx => {
      if (body.guestsPost === true && (body.read ?? 'everyone') !== 'everyone') throw guestsNeedEveryone()
      const made = await roomsRepository(ctx.db).create({ ...roomChanges(body), post: body.post ?? POST_NODE }, trx)
      if (made === 'taken') throw new RoomSlugTaken()
      await ctx.activityLog.write({ type: 'CREATED_ROOM', user, details: { room: made.slug, name: made.name } }, trx)
      await announceChange(ctx, 'rooms', [], trx)
      return made
    })
    return new Successful({ room })
  }
}

/**
 * PUT /api/panel/shoutbox/rooms/:id — changes a room's name, description, who may read
 * or post, its place, its slow mode, or archives it (`archived: true`) or brings it back
 * (MANAGE_SHOUTBOX). A slug never changes: permalinks and nodes name it. The default room
 * stays readable by everyone (the seed's list is public) and cannot be archived: 409
 * DEFAULT_ROOM. Logged UPDATED_ROOM (ARCHIVED_ROOM when it archives); a change of who may
 * read closes the streams that can no longer read it, on every process.
 */
export class UpdateRoom extends PanelApi<typeof UpdateRoomSchema> {
  readonly method = 'PUT'
  readonly path = '/api/panel/shoutbox/rooms/:id'
  override readonly closedToTokens = true
  readonly schema = UpdateRoomSchema
  override readonly answers = { ok: okAnswer({ room: PanelRoomSchema }, { room: ROOM_EXAMPLE }), errors: [NoPermission, NotFound, DefaultRoom] }

  async handle (call: SignedInCall<typeof UpdateRoomSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, body } = call
    const changes: RoomChanges = roomChanges(body)
    const room = await ctx.transaction(trx => changeRoom(ctx, Number(call.params.id), changes, user, trx))
    return new Successful({ room })
  }
}

/**
 * DELETE /api/panel/shoutbox/rooms/:id — archives a room (MANAGE_SHOUTBOX): hidden from
 * the rooms list, read-only, its history kept and readable as before. Logged ARCHIVED_ROOM.
 */
export class ArchiveRoom extends PanelApi<typeof RoomIdSchema> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/shoutbox/rooms/:id'
  override readonly closedToTokens = true
  readonly schema = RoomIdSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound, DefaultRoom] }

  async handle (call: SignedInCall<typeof RoomIdSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    await ctx.transaction(trx => changeRoom(ctx, Number(call.params.id), { archived: true }, user, trx))
    return new Successful()
  }
}

/** Guests may post only where everyone reads (they read as everyone does). */
function guestsNeedEveryone (): BadRequest {
  return new BadRequest({ bodyValidationError: 'body/guestsPost needs a room whose read is "everyone"' })
}

/** Applies `changes` to room `id` with its log entry and notice; a change to nothing is neither logged nor announced. */
async function changeRoom (ctx: AddonContext, id: number, changes: RoomChanges, user: { id: number, username: string }, trx: Transaction): Promise<Room> {
  const rooms = roomsRepository(ctx.db)
  const before = await rooms.lock(id, trx)
  if (before === undefined) throw new NotFound()
  if (id === GENERAL_ROOM_ID && (changes.archived === true || (changes.read !== undefined && changes.read !== 'everyone'))) throw new DefaultRoom()
  if (changes.guestsPost === true && (changes.read ?? before.read) !== 'everyone') throw guestsNeedEveryone()
  // A room closed to some readers is closed to guests' posts too: they cannot read it.
  const after = (await rooms.update(id, changes.read !== undefined && changes.read !== 'everyone' ? { ...changes, guestsPost: false } : changes, trx))!
  const changed = (Object.keys(changes) as Array<keyof RoomChanges>).filter(key => before[key] !== after[key])
  if (changed.length === 0) return after
  const archiving = changes.archived === true && !before.archived
  await ctx.activityLog.write({
    type: archiving ? 'ARCHIVED_ROOM' : 'UPDATED_ROOM', user, details: { room: after.slug, name: after.name, changed: changed.join(', ') }
  }, trx)
  await announceChange(ctx, 'rooms', [], trx)
  return after
}
