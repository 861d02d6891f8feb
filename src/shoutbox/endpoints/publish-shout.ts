import { NoPermission, PanelApi, Successful, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { MessageTooLong } from '../errors.js'
import { assertPublishable } from '../message.js'
import { Publisher } from '../publisher.js'
import { PublishShoutSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'

/**
 * POST /api/panel/shoutbox (the panel calls /panel/api/shoutbox). The shout, its
 * CREATED_SHOUT entry and its stream event are written in one transaction — all or
 * none — shared with the publishes arriving at the same moment (see Publisher).
 */
export class PublishShout extends PanelApi<typeof PublishShoutSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox'
  readonly schema = PublishShoutSchema
  // The contract: `{"result":"ok"}` and nothing else.
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, MessageTooLong] }

  async handle (call: SignedInCall<typeof PublishShoutSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    const { message } = call.body
    assertPublishable(message, (await ShoutboxSettings.of(ctx).current()).maxMessageLength)
    await Publisher.of(ctx).publish(user, message, { logged: true })
    return new Successful()
  }
}
