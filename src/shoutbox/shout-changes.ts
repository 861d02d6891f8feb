import { NotFound, type AddonContext, type Transaction } from '../sdk/index.js'
import { announceChange } from './changes/notice.js'
import { ShoutCreated, ShoutDeleted, ShoutEdited } from './events.js'
import { excerptOf } from './excerpt.js'
import { mentionKey } from './mentions.js'
import { reactionsRepository } from './reactions-repository.js'
import { isConversation } from './rooms.js'
import type { RoomShout } from './schemas.js'
import { shoutSubject, shoutsRepository, type OffBoardState, type Recorded } from './shouts-repository.js'

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
  // A conversation of two is told to no webhook and no listener: its members alone read it.
  if (isConversation(shout.room)) return shout
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
  return await toldGone(ctx, deleted, trx)
}

/**
 * Takes shout `id` off the board (held again, or hidden by reports), with `message` as its
 * new text when given: every reader, webhook and listener is told as for a delete; the
 * row stays, with its reactions, for a moderator to put back (`restoreShout`).
 */
export async function takeShoutOff (ctx: AddonContext, id: number, state: OffBoardState, why: string, message: string | null, trx: Transaction): Promise<RoomShout> {
  const taken = await shoutsRepository(ctx.db).takeOff(id, state, why, message, trx)
  if (taken === undefined) throw new NotFound()
  return await toldGone(ctx, taken, trx)
}

async function toldGone (ctx: AddonContext, { shout, eventId }: Recorded, trx: Transaction): Promise<RoomShout> {
  await announceChange(ctx, 'shout-deleted', [{ id: eventId, kind: 'shout-deleted', shout: { id: shout.id, room: shout.room } }], trx)
  // Its mentions' notifications go with it, and its text leaves the deliveries not yet sent.
  await ctx.notifications.remove([mentionKey(shout.id)], trx)
  if (isConversation(shout.room)) {
    // A direct message's notification keeps no copy of words taken back.
    await ctx.notifications.rewrite({ field: 'shoutId', values: [shout.id] }, { excerpt: undefined }, trx)
    return shout
  }
  await ctx.webhooks.redact(shoutSubject(shout.id), ['message'], trx)
  await ctx.webhooks.enqueue('shout.deleted', [{ data: { id: shout.id, room: shout.room }, subject: shoutSubject(shout.id) }], trx)
  ctx.events.emit(ShoutDeleted, shout, trx)
  return shout
}

/**
 * Puts held or hidden shout `id` (back) on the board as it was — its id, date, reactions,
 * the replies that quote it — vouched for by staff (`approved`: it was held). Readers hear
 * `shout-restored` (and its reaction counts of `reactionSet`, when it has any); webhooks
 * and listeners a create. The caller tells the mentioned once `trx` has committed
 * (`Mentions.afterPublish`). NOT_FOUND when it is not off the board.
 */
export async function restoreShout (ctx: AddonContext, id: number, approved: boolean, reactionSet: readonly string[], trx: Transaction): Promise<RoomShout> {
  const restored = await shoutsRepository(ctx.db).restore(id, approved, trx)
  if (restored === undefined) throw new NotFound()
  const { shout, eventId } = restored
  await announceChange(ctx, 'shout-restored', [{ id: eventId, kind: 'shout-restored', shout }], trx)
  const reactions = reactionsRepository(ctx.db)
  if ((await reactions.of([id], reactionSet, null, trx)).has(id)) {
    const counted = await reactions.record(id, shout.room, reactionSet, trx)
    await announceChange(ctx, 'shout-reactions', [{ id: counted.id, kind: 'shout-reactions', shout: counted.shout }], trx)
  }
  if (isConversation(shout.room)) return shout
  const { replyTo, ...told } = shout
  await ctx.webhooks.enqueue('shout.created', [{ data: { ...told, replyTo: replyTo?.id ?? null }, subject: shoutSubject(id) }], trx)
  ctx.events.emit(ShoutCreated, shout, trx)
  return shout
}
