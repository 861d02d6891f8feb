import { Api, LoggedInApi, NotFound, Successful, Type, okAnswer, type PublicCall, type SignedInCall } from '../../../sdk/index.js'
import { Rooms } from '../../rooms.js'
import { RoomSlugSchema } from '../../schemas.js'
import { Presence } from '../presence.js'
import { presenceRepository } from '../presence-repository.js'

const PresenceSchema = {
  members: Type.Array(Type.Object({
    username: Type.String(),
    since: Type.Integer({ description: 'ms since the epoch: when they opened the room (their earliest open stream)' })
  }, { additionalProperties: false }), { description: 'members shown by name, longest here first' }),
  guests: Type.Integer({ minimum: 0, description: 'readers not named: visitors, and members who turned showPresence off' })
}

const RoomParams = { params: Type.Object({ slug: RoomSlugSchema }) }

/**
 * GET /api/shoutbox/rooms/:slug/presence — public: who has the room open now, on every
 * host process (a reader is here while their live stream hears the room; a few seconds'
 * delay). 404 for a room the caller may not read, exactly as for none. The stream's
 * `presence` event carries the same, at most once per room every five seconds, when it changed.
 */
export class RoomPresence extends Api<typeof RoomParams> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rooms/:slug/presence'
  readonly schema = RoomParams
  override readonly readsSession = true
  override readonly answers = {
    ok: okAnswer(PresenceSchema, { members: [{ username: 'ada', since: 1795000000000 }], guests: 3 }),
    errors: [NotFound]
  }

  async handle ({ ctx, params, viewer }: PublicCall<typeof RoomParams>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, viewer)
    const { members, guests } = await Presence.of(ctx).of(room.id)
    return new Successful({ members, guests })
  }
}

const ShowPresence = Type.Boolean({ description: 'shown by name in the rooms one has open (default true); off: counted among `guests`' })

/** GET /api/shoutbox/me/presence — the caller's `showPresence` preference. */
export class GetShowPresence extends LoggedInApi {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/me/presence'
  readonly schema = {}
  override readonly answers = { ok: okAnswer({ showPresence: ShowPresence }, { showPresence: true }) }

  async handle ({ ctx, user }: SignedInCall): Promise<Successful> {
    return new Successful({ showPresence: await presenceRepository(ctx.db).shows(user.id) })
  }
}

const SetShowPresenceSchema = { body: Type.Object({ showPresence: ShowPresence }, { additionalProperties: false }) }

/** PUT /api/shoutbox/me/presence {showPresence} — whether the caller is shown by name where they are; applies within seconds on every process. */
export class SetShowPresence extends LoggedInApi<typeof SetShowPresenceSchema> {
  readonly method = 'PUT'
  readonly path = '/api/shoutbox/me/presence'
  readonly schema = SetShowPresenceSchema
  override readonly answers = { ok: okAnswer({ showPresence: ShowPresence }, { showPresence: false }) }

  async handle ({ ctx, user, body }: SignedInCall<typeof SetShowPresenceSchema>): Promise<Successful> {
    await presenceRepository(ctx.db).setShows(user.id, body.showPresence)
    void Presence.of(ctx).beat()
    return new Successful({ showPresence: body.showPresence })
  }
}
