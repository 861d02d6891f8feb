import { NoPermission, NotFound, PanelApi, Successful, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { ShoutIdParamsSchema } from '../schemas.js'
import { deleteShout } from '../shout-changes.js'

/** DELETE /api/panel/shoutbox/:id — the shout and its DELETED_SHOUT entry in one transaction. */
export class DeleteShout extends PanelApi<typeof ShoutIdParamsSchema> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/shoutbox/:id'
  readonly schema = ShoutIdParamsSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof ShoutIdParamsSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    await ctx.transaction(async trx => {
      const shout = await deleteShout(ctx, Number(call.params.id), trx)
      await ctx.activityLog.write({
        type: 'DELETED_SHOUT', user, details: { shoutId: shout.id, author: shout.username, message: shout.message, room: shout.room }
      }, trx)
    })
    return new Successful()
  }
}
