import { NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { MessageTooLong, RoomArchived } from '../errors.js'
import { assertPublishable } from '../message.js'
import { Publisher } from '../publisher.js'
import { GENERAL_ROOM_SLUG, Rooms } from '../rooms.js'
import { ShoutboxSettings } from '../settings.js'

const PanelPublishSchema = {
  body: Type.Object({
    message: Type.String(),
    /** The room's slug; the default room when absent. */
    room: Type.Optional(Type.String({ maxLength: 64 }))
  })
}

/**
 * POST /api/panel/shoutbox (the panel calls /panel/api/shoutbox) `{message, room?}`: staff
 * publish, in the default room unless `room` names another (404 for none, 409
 * ROOM_ARCHIVED for an archived one). The shout, its CREATED_SHOUT entry (naming the
 * room) and its stream event are written in one transaction — all or none — shared with
 * the publishes arriving at the same moment (see Publisher).
 */
export class PublishShout extends PanelApi<typeof PanelPublishSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox'
  readonly schema = PanelPublishSchema
  // The contract: `{"result":"ok"}` and nothing else.
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound, RoomArchived, MessageTooLong] }

  async handle (call: SignedInCall<typeof PanelPublishSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, viewer } = call
    const { message } = call.body
    // MANAGE_SHOUTBOX reads every room: the room is found, or it does not exist.
    const room = await Rooms.of(ctx).readableBySlug(call.body.room ?? GENERAL_ROOM_SLUG, viewer)
    if (room.archived) throw new RoomArchived()
    assertPublishable(message, (await ShoutboxSettings.of(ctx).current()).maxMessageLength)
    await Publisher.of(ctx).publish(user, message, { logged: true, room })
    return new Successful()
  }
}
