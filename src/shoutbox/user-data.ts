import { DELETED_USER_NAME, type AddonContext, type ErasureMode, type Transaction } from '../sdk/index.js'
import { announceChange } from './changes/notice.js'
import { eraseConversations } from './direct/member-data.js'
import { deleteShout } from './shout-changes.js'
import { EVENTS_TABLE, IGNORES_TABLE, MUTES_TABLE, REPORTS_TABLE, SHOUTS_TABLE } from './tables.js'

/**
 * A deleted account, inside the transaction that deletes it: its ignore lists (its own,
 * and its place in others') go (its reactions, read markers, flood counts, mute and held
 * shouts go too: the host deletes the rows the data map marks `erase: 'rows'`).
 * Its shouts go too (`delete`, each as a moderator's delete: events, notices, webhooks), or
 * stay under the name `deleted user` with no author (`anonymise`): the stream's history
 * and the replies' quotes say so too, and every process makes its kept lists anew. The
 * copies of their text go from what others keep: the excerpts of the notifications their
 * shouts caused, the text of the activity entries about their shouts; the reports they
 * filed stay in the moderators' queue without their note; the mutes they gave name
 * `deleted user`. (The host then replaces their name in what is left: see `eraseAccount`.)
 */
export async function eraseMember (ctx: AddonContext, userId: number, mode: ErasureMode, trx: Transaction): Promise<void> {
  await eraseConversations(ctx, userId, trx)
  const shoutIds = (await trx(SHOUTS_TABLE).where({ author_id: userId }).pluck('id')).map(Number)
  await ctx.notifications.rewrite({ field: 'shoutId', values: shoutIds }, { excerpt: undefined }, trx)
  await ctx.activityLog.forget({ key: 'id', values: shoutIds }, ['message', 'previousMessage'], trx)
  await ctx.activityLog.forget({ key: 'shoutId', values: shoutIds }, ['message', 'excerpt'], trx)
  await trx(REPORTS_TABLE).where({ user_id: userId }).update({ note: null })
  await trx(MUTES_TABLE).where({ by_id: userId }).update({ by_id: null, by_username: DELETED_USER_NAME })
  // Their own rows of the tables the data map marks `erase: 'rows'` (reactions, read
  // markers, flood counts, their mute, their held shouts) the host deletes, walking the map.
  await trx(IGNORES_TABLE).where({ user_id: userId }).orWhere({ ignored_id: userId }).delete()
  // Its shouts off the board (held, or hidden by reports) are no one's to read: they go, whatever the mode.
  await trx(SHOUTS_TABLE).where({ author_id: userId }).whereNotNull('state').delete()
  if (mode === 'delete') {
    for (const id of shoutIds.sort((a, b) => a - b)) await deleteShout(ctx, id, trx)
    return
  }
  const renamed: Array<{ id: number | string }> = await trx(SHOUTS_TABLE).where({ author_id: userId })
    .update({ username: DELETED_USER_NAME, author_id: null, uploads: null }).returning('id')
  if (renamed.length === 0) return
  const ids = renamed.map(row => Number(row.id))
  // Their pictures go with their account (the host deletes the uploads): no shout, and no event of the stream's history, shows them.
  await trx.raw("update ?? set shout = shout - 'uploads' where (shout->>'id')::bigint = any(?) and shout->'uploads' is not null", [EVENTS_TABLE, ids])
  await trx.raw(`update ?? set shout = jsonb_set(shout, '{username}', to_jsonb(?::text))
    where (shout->>'id')::bigint = any(?) and shout->>'username' is not null`, [EVENTS_TABLE, DELETED_USER_NAME, ids])
  await trx.raw(`update ?? set shout = jsonb_set(shout, '{replyTo,username}', to_jsonb(?::text))
    where (shout->'replyTo'->>'id')::bigint = any(?) and shout->'replyTo'->>'username' is not null`, [EVENTS_TABLE, DELETED_USER_NAME, ids])
  await announceChange(ctx, 'authors-renamed', [], trx)
}
