import { Api, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, Type, okAnswer, type PublicCall, type SignedInCall } from '../../sdk/index.js'
import { ARCHIVE_ANSWER, archivePage } from '../archive-page.js'
import { DuplicateShout, MessageTooLong, Muted, RoomArchived } from '../errors.js'
import { pinsRepository } from '../pins-repository.js'
import { postInRoom } from '../posting.js'
import { canPost, Rooms } from '../rooms.js'
import { ROOM_SHOUT_EXAMPLE, RoomPageSchema, RoomShoutSchema, RoomSlugSchema, SLUG_PATTERN } from '../schemas.js'


const RoomParams = Type.Object({ slug: RoomSlugSchema })

const RoomSchema = Type.Object({
  id: Type.Integer(),
  slug: Type.String({ pattern: SLUG_PATTERN }),
  name: Type.String(),
  description: Type.String(),
  canPost: Type.Boolean({ description: 'the caller\'s role may post in it (a mute aside)' })
}, { additionalProperties: false })

/**
 * GET /api/shoutbox/rooms — public: the rooms the caller may read (archived ones left
 * out), by position, each with whether the caller may post in it. Rooms the caller may
 * not read are not named.
 */
export class ListRooms extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rooms'
  readonly schema = {}
  override readonly readsSession = true
  override readonly answers = {
    ok: okAnswer({ rooms: Type.Array(RoomSchema, { description: 'by position' }) }, {
      rooms: [{ id: 1, slug: 'general', name: 'General', description: '', canPost: true }]
    })
  }

  async handle ({ ctx, user }: PublicCall): Promise<Successful> {
    const rooms = await Rooms.of(ctx).listed(user)
    return new Successful({
      rooms: rooms.map(room => ({ id: room.id, slug: room.slug, name: room.name, description: room.description, canPost: canPost(room, user) }))
    })
  }
}

/**
 * GET /api/shoutbox/rooms/:slug/shouts?before=&limit=&q= — public: a room's shouts, newest
 * first, a page at a time, as the archive. 404 for a room the caller may not read, exactly as for none.
 */
export class RoomShouts extends Api<typeof RoomPageSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rooms/:slug/shouts'
  readonly schema = RoomPageSchema
  override readonly readsSession = true
  override readonly answers = { ok: ARCHIVE_ANSWER, errors: [NotFound, TooManyRequests] }

  async handle ({ ctx, params, query, ip, user }: PublicCall<typeof RoomPageSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, user)
    return new Successful({ ...await archivePage(ctx, room, query, ip) })
  }
}

const PostInRoomSchema = {
  params: RoomParams,
  body: Type.Object({ message: Type.String() })
}

/**
 * POST /api/shoutbox/rooms/:slug/shouts {message} — a member talks in a room: as
 * `POST /api/shoutbox`, with the room's `post` node and its slow mode. 404 for a room the
 * caller may not read; 403 without its post node; 409 ROOM_ARCHIVED in an archived room.
 */
export class PostInRoom extends LoggedInApi<typeof PostInRoomSchema> {
  readonly method = 'POST'
  readonly path = '/api/shoutbox/rooms/:slug/shouts'
  readonly schema = PostInRoomSchema
  override readonly answers = {
    ok: okAnswer({ shout: RoomShoutSchema }, { shout: ROOM_SHOUT_EXAMPLE }, 'The shout as stored'),
    errors: [NotFound, NoPermission, RoomArchived, Muted, MessageTooLong, DuplicateShout, TooManyRequests]
  }

  async handle ({ ctx, params, body, user }: SignedInCall<typeof PostInRoomSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, user)
    return new Successful({ shout: await postInRoom(ctx, user, room, body.message) })
  }
}

const RoomOnlySchema = { params: RoomParams }

/** GET /api/shoutbox/rooms/:slug/pinned — public: a room's pinned shouts, newest pin first; 404 as for its shouts. */
export class RoomPinned extends Api<typeof RoomOnlySchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rooms/:slug/pinned'
  readonly schema = RoomOnlySchema
  override readonly readsSession = true
  override readonly answers = {
    ok: okAnswer({ shouts: Type.Array(RoomShoutSchema, { description: 'newest pin first' }) }, { shouts: [ROOM_SHOUT_EXAMPLE] }),
    errors: [NotFound]
  }

  async handle ({ ctx, params, user }: PublicCall<typeof RoomOnlySchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, user)
    return new Successful({ shouts: await pinsRepository(ctx.db).list(room) })
  }
}
