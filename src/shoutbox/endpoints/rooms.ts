import { Api, EmailNotVerified, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, Type, okAnswer, type PublicCall, type SignedInCall } from '../../sdk/index.js'
import { ARCHIVE_ANSWER, archivePage } from '../archive-page.js'
import { DuplicateShout, MessageTooLong, Muted, RoomArchived, WatchedWord } from '../errors.js'
import { pinsRepository } from '../pins-repository.js'
import { postInRoom } from '../posting.js'
import { MarkLimits, readMarkersRepository, UNREAD_COUNTED } from '../read-markers.js'
import { withReactions } from '../reactions.js'
import { canPost, guestsMayPost, Rooms } from '../rooms.js'
import { MemberPostBodySchema, ROOM_SHOUT_EXAMPLE, RoomPageSchema, FullShoutSchema, RoomSlugSchema, SLUG_PATTERN } from '../schemas.js'


const RoomParams = Type.Object({ slug: RoomSlugSchema })

const RoomSchema = Type.Object({
  id: Type.Integer(),
  slug: Type.String({ pattern: SLUG_PATTERN }),
  name: Type.String(),
  description: Type.String(),
  canPost: Type.Boolean({ description: 'the caller\'s role may post in it (a mute aside)' }),
  guestsPost: Type.Optional(Type.Literal(true, { description: 'guests (no account) may post here; absent otherwise' })),
  lastReadId: Type.Optional(Type.Integer({ minimum: 0, description: 'signed in: the newest shout id the caller has read here (0: none)' })),
  unread: Type.Optional(Type.Integer({ minimum: 0, maximum: UNREAD_COUNTED, description: `signed in: newer shouts others wrote here, counted up to ${UNREAD_COUNTED}` }))
}, { additionalProperties: false })

/**
 * GET /api/shoutbox/rooms — public: the rooms the caller may read (archived ones left
 * out), the default room first, then by position, each with whether the caller may post
 * in it; for a signed-in caller, how far they have read it and how many newer shouts of
 * others it holds (`unread`, up to 100). Rooms the caller may not read are not named.
 */
export class ListRooms extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rooms'
  readonly schema = {}
  override readonly readsSession = true
  override readonly answers = {
    ok: okAnswer({ rooms: Type.Array(RoomSchema, { description: 'by position' }) }, {
      rooms: [{ id: 1, slug: 'general', name: 'General', description: '', canPost: true, lastReadId: 40, unread: 2 }]
    })
  }

  async handle ({ ctx, user, viewer }: PublicCall): Promise<Successful> {
    const rooms = await Rooms.of(ctx).listed(viewer)
    const read = user === null ? undefined : await readMarkersRepository(ctx.db).states(user.id, rooms.map(room => room.id))
    return new Successful({
      rooms: rooms.map(room => ({
        id: room.id, slug: room.slug, name: room.name, description: room.description, canPost: canPost(room, viewer), ...(guestsMayPost(room) ? { guestsPost: true } : {}), ...read?.get(room.id)
      }))
    })
  }
}

const MarkReadSchema = {
  params: RoomParams,
  body: Type.Object({ lastReadId: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) })
}

/**
 * PUT /api/shoutbox/rooms/:slug/read {lastReadId} — the caller has read the room up to
 * that shout id: the marker moves forward only, never past the room's newest shout.
 * Answers the marker as it is now. 404 for a room the caller may not read, as for none;
 * at most MARKS_PER_MINUTE a minute per member → 429.
 */
export class MarkRoomRead extends LoggedInApi<typeof MarkReadSchema> {
  readonly method = 'PUT'
  readonly path = '/api/shoutbox/rooms/:slug/read'
  readonly schema = MarkReadSchema
  override readonly answers = {
    ok: okAnswer({ lastReadId: Type.Integer({ minimum: 0 }) }, { lastReadId: 42 }, 'The marker as it is now'),
    errors: [NotFound, TooManyRequests]
  }

  async handle ({ ctx, params, body, user, viewer }: SignedInCall<typeof MarkReadSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, viewer)
    MarkLimits.of(ctx).admit(user.id)
    return new Successful({ lastReadId: await readMarkersRepository(ctx.db).markRead(user.id, room.id, body.lastReadId) })
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

  async handle ({ ctx, params, query, ip, user, viewer }: PublicCall<typeof RoomPageSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, viewer)
    return new Successful({ ...await archivePage(ctx, room, query, ip, user) })
  }
}

const PostInRoomSchema = {
  params: RoomParams,
  body: MemberPostBodySchema
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
    ok: okAnswer({ shout: FullShoutSchema }, { shout: ROOM_SHOUT_EXAMPLE }, 'The shout as stored'),
    errors: [NotFound, NoPermission, EmailNotVerified, RoomArchived, Muted, MessageTooLong, WatchedWord, DuplicateShout, TooManyRequests]
  }

  async handle ({ ctx, params, body, viewer }: SignedInCall<typeof PostInRoomSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, viewer)
    return new Successful({ shout: await postInRoom(ctx, viewer, room, body.message, body.replyTo ?? null, body.uploads) })
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
    ok: okAnswer({ shouts: Type.Array(FullShoutSchema, { description: 'newest pin first' }) }, { shouts: [ROOM_SHOUT_EXAMPLE] }),
    errors: [NotFound]
  }

  async handle ({ ctx, params, user, viewer }: PublicCall<typeof RoomOnlySchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, viewer)
    return new Successful({ shouts: await withReactions(ctx, await pinsRepository(ctx.db).list(room), user) })
  }
}
