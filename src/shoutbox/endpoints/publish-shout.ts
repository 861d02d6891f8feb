import { PanelApi, Successful, type SignedInCall } from '../../sdk/index.js'
import { ShoutCreated } from '../events.js'
import { ShoutboxLive } from '../live.js'
import { assertPublishable } from '../message.js'
import { PublishShoutSchema } from '../schemas.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * POST /api/panel/shoutbox (the panel calls /panel/api/shoutbox). The shout, its
 * CREATED_SHOUT entry and its stream event are written in one transaction: all or none.
 */
export class PublishShout extends PanelApi<typeof PublishShoutSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox'
  readonly schema = PublishShoutSchema

  async handle (call: SignedInCall<typeof PublishShoutSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    const { message } = call.body
    const live = ShoutboxLive.of(ctx)
    assertPublishable(message, (await live.settings()).maxMessageLength)
    await ctx.transaction(async trx => {
      const { shout, eventId } = await shoutsRepository(ctx.db).insert({ message, username: user.username, date: Date.now() }, trx)
      await ctx.activityLog.write({ type: 'CREATED_SHOUT', user, details: { message } }, trx)
      await live.announce(trx, 'shout-created', eventId)
      ctx.events.emit(ShoutCreated, shout, trx)
    })
    return new Successful()
  }
}
