import { NoPermission, NotFound, PanelApi, Successful, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { announceChange } from '../changes/notice.js'
import { TooManyPinned } from '../errors.js'
import { pinsRepository } from '../pins-repository.js'
import { PinSchema } from '../schemas.js'
import { isConversation } from '../rooms.js'
import { ShoutboxSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * PUT /api/panel/shoutbox/:id/pin {pinned} — pins or unpins a shout, logged PINNED_SHOUT
 * or UNPINNED_SHOUT. At most `maxPinned` are pinned in each room: the pins table is locked while one
 * is counted and written, so two pins at once cannot both take the last place. Asking
 * for the state a shout is already in changes, logs and announces nothing.
 */
export class PinShout extends PanelApi<typeof PinSchema> {
  readonly method = 'PUT'
  readonly path = '/api/panel/shoutbox/:id/pin'
  readonly schema = PinSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound, TooManyPinned] }

  async handle (call: SignedInCall<typeof PinSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    const id = Number(call.params.id)
    const { pinned } = call.body
    const { maxPinned } = await ShoutboxSettings.of(ctx).current()
    await ctx.transaction(async trx => {
      const pins = pinsRepository(ctx.db)
      await pins.lock(trx)
      // Locked, so an author's edit (which locks it too) cannot slip in beside the pin.
      const found = await shoutsRepository(ctx.db).findWithAuthor(id, trx)
      if (found === undefined || isConversation(found.room)) throw new NotFound()
      const { authorId: _, roomId, vouched: __, ...shout } = found
      if (await pins.isPinned(id, trx) === pinned) return
      if (pinned && await pins.count(roomId, trx) >= maxPinned) throw new TooManyPinned(maxPinned)
      const eventId = pinned ? await pins.pin(id, trx) : await pins.unpin(id, trx)
      // Deleted between the read and the write.
      if (eventId === undefined) throw new NotFound()
      const kind = pinned ? 'shout-pinned' : 'shout-unpinned'
      await ctx.activityLog.write({
        type: pinned ? 'PINNED_SHOUT' : 'UNPINNED_SHOUT', user, details: { shoutId: shout.id, author: shout.username, message: shout.message, room: shout.room }
      }, trx)
      await announceChange(ctx, kind, [{ id: eventId, kind, shout }], trx)
    })
    return new Successful()
  }
}
