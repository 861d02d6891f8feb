import { IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { announceChange } from '../change-notices.js'
import { ShoutDeleted } from '../events.js'
import { shoutsRepository } from '../shouts-repository.js'

const ShoutIdParams = { params: IdParamsSchema }

/** DELETE /api/panel/shoutbox/:id — the shout and its DELETED_SHOUT entry in one transaction. */
export class DeleteShout extends PanelApi<typeof ShoutIdParams> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/shoutbox/:id'
  readonly schema = ShoutIdParams
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof ShoutIdParams>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    await ctx.transaction(async trx => {
      const deleted = await shoutsRepository(ctx.db).delete(Number(call.params.id), trx)
      if (deleted === undefined) throw new NotFound()
      const { shout, eventId } = deleted
      await ctx.activityLog.write({
        type: 'DELETED_SHOUT', user, details: { shoutId: shout.id, author: shout.username, message: shout.message }
      }, trx)
      await announceChange(ctx, trx, { kind: 'shout-deleted', eventIds: [eventId], events: [{ id: eventId, kind: 'shout-deleted', shout: { id: shout.id } }] })
      ctx.events.emit(ShoutDeleted, shout, trx)
    })
    return new Successful()
  }
}
