import { NotFound, type AddonContext, type Transaction } from '../sdk/index.js'
import { announceChange } from './changes/notice.js'
import { ShoutDeleted, ShoutEdited } from './events.js'
import { excerptOf } from './excerpt.js'
import { mentionKey } from './mentions.js'
import type { RoomShout } from './schemas.js'
import { shoutSubject, shoutsRepository } from './shouts-repository.js'

/**
 * The edit and the delete of one shout, whoever makes them (its author, or a moderator
 * through the panel): the change with its stream event, the notice every process's lists
 * and streams follow, the addon event, and every stored copy of its text (the stream's
 * history, replies' quotes, notifications, deliveries not yet sent) — all inside `trx`. NOT_FOUND when the shout is
 * gone. What only one of them does (an activity entry, a permission) stays with the caller.
 */

/** `byModerator`: the author may no longer edit it (see `shoutsRepository.edit`). */
export async function editShout (ctx: AddonContext, id: number, message: string, byModerator: boolean, trx: Transaction): Promise<RoomShout> {
  const edited = await shoutsRepository(ctx.db).edit(id, message, byModerator, trx)
  if (edited === undefined) throw new NotFound()
  const { shout, eventId } = edited
  await announceChange(ctx, 'shout-edited', [{ id: eventId, kind: 'shout-edited', shout }], trx)
  // Every copy of the text follows it: the excerpts of its notifications, the deliveries not yet sent.
  await ctx.notifications.rewrite({ field: 'shoutId', values: [id] }, { excerpt: excerptOf(shout.message) }, trx)
  await ctx.webhooks.rewrite(shoutSubject(id), { message: shout.message }, trx)
  const { id: _, replyTo, ...told } = shout
  await ctx.webhooks.enqueue('shout.edited', [{ data: { id, ...told, replyTo: replyTo?.id ?? null }, subject: shoutSubject(id) }], trx)
  ctx.events.emit(ShoutEdited, shout, trx)
  return shout
}

/** The deleted shout, as it was. Its text leaves the stream's history; its event carries the id alone; the notifications of its mentions are removed. */
export async function deleteShout (ctx: AddonContext, id: number, trx: Transaction): Promise<RoomShout> {
  const deleted = await shoutsRepository(ctx.db).delete(id, trx)
  if (deleted === undefined) throw new NotFound()
  const { shout, eventId } = deleted
  await announceChange(ctx, 'shout-deleted', [{ id: eventId, kind: 'shout-deleted', shout: { id: shout.id, room: shout.room } }], trx)
  // Its mentions' notifications go with it, and its text leaves the deliveries not yet sent.
  await ctx.notifications.remove([mentionKey(shout.id)], trx)
  await ctx.webhooks.redact(shoutSubject(shout.id), ['message'], trx)
  await ctx.webhooks.enqueue('shout.deleted', [{ data: { id: shout.id, room: shout.room }, subject: shoutSubject(shout.id) }], trx)
  ctx.events.emit(ShoutDeleted, shout, trx)
  return shout
}
