import { NoPermission, NotFound, PanelApi, Successful, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { ShoutIdParamsSchema } from '../schemas.js'
import { isConversation } from '../rooms.js'
import { deleteShout } from '../shout-changes.js'
import { shoutsRepository } from '../shouts-repository.js'

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
      const id = Number(call.params.id)
      // A direct message is its two members' alone: staff delete one only from the review queue, once reported.
      const found = await shoutsRepository(ctx.db).findWithAuthor(id, trx)
      if (found === undefined || isConversation(found.room)) throw new NotFound()
      const shout = await deleteShout(ctx, id, trx)
      await ctx.activityLog.write({
        type: 'DELETED_SHOUT', user, details: { shoutId: shout.id, author: shout.username, message: shout.message, room: shout.room }
      }, trx)
    })
    return new Successful()
  }
}
