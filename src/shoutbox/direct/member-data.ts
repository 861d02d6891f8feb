import { keysetArray, type AddonContext, type DataMap, type StreamedArray, type Transaction } from '../../sdk/index.js'
import { announceChange } from '../changes/notice.js'
import { deleteShout } from '../shout-changes.js'
import { ROOMS_TABLE, SHOUTS_TABLE } from '../tables.js'

interface MessageRow { id: number | string, room_id: number, other: number | null, username: string, message: string, date: number | string, reply_to_id: number | string | null }

/**
 * A member's conversations for their data export: every message of each (theirs and the
 * other member's, the text as it is now), oldest first, with the conversation's id and
 * the other member's name now (`deleted user` once erased) — read a batch at a time, up to
 * the newest message when the export began.
 */
export async function conversationsExport (ctx: AddonContext, userId: number): Promise<StreamedArray> {
  const { db } = ctx
  const last = Number((await db(SHOUTS_TABLE).max<{ last: number | string | null }>('id as last').first())?.last ?? 0)
  return keysetArray<MessageRow, number>({
    read: async (after, limit) => (await db.raw<{ rows: MessageRow[] }>(`
      select s.id, s.room_id, case when r.member_low = ? then r.member_high else r.member_low end as other, s.username, s.message, s.date, s.reply_to_id
      from ?? s join ?? r on r.id = s.room_id
      where r.kind = 'direct' and (r.member_low = ? or r.member_high = ?) and s.state is null and s.id > ? and s.id <= ?
      order by s.id limit ?`, [userId, SHOUTS_TABLE, ROOMS_TABLE, userId, userId, after ?? 0, last, limit])).rows,
    key: row => Number(row.id),
    items: async rows => {
      const names = await ctx.users.namesOf([...new Set(rows.flatMap(row => row.other === null ? [] : [row.other]))])
      return rows.map(row => ({
        conversation: row.room_id,
        with: row.other === null ? 'deleted user' : names.get(row.other) ?? 'deleted user',
        id: Number(row.id),
        username: row.username,
        message: row.message,
        date: Number(row.date),
        replyTo: row.reply_to_id === null ? null : Number(row.reply_to_id)
      }))
    }
  })
}

/**
 * An erased member's direct messages go, whatever the site's erasure mode (each as its
 * author's delete: the stream hears it, the other's notification loses its words); their
 * place in each conversation empties with the account (the other member then sees
 * `deleted user`). Inside the erasure's transaction.
 */
export async function eraseConversations (ctx: AddonContext, userId: number, trx: Transaction): Promise<void> {
  const conversations = (await trx(ROOMS_TABLE).where({ kind: 'direct' }).andWhere(query => { void query.where({ member_low: userId }).orWhere({ member_high: userId }) }).pluck('id')).map(Number)
  if (conversations.length === 0) return
  const messages = (await trx(SHOUTS_TABLE).where({ author_id: userId }).whereIn('room_id', conversations).whereNull('state').orderBy('id').pluck('id')).map(Number)
  for (const id of messages) await deleteShout(ctx, id, trx)
  await trx(ROOMS_TABLE).whereIn('id', conversations).where({ member_low: userId }).update({ member_low: null })
  await trx(ROOMS_TABLE).whereIn('id', conversations).where({ member_high: userId }).update({ member_high: null })
  await trx(ROOMS_TABLE).whereIn('id', conversations).where({ started_by: userId }).update({ started_by: null })
  await announceChange(ctx, 'rooms', [], trx)
}

/** The direct messages' own table in the data map (their messages are shouts, their conversations rooms: see the board's map). */
export const DIRECT_DATA_MAP: DataMap = [
  {
    table: 'shoutbox_direct_preferences',
    person: 'user_id',
    erase: 'rows',
    personal: {},
    other: ['user_id', 'accept', 'updated_at']
  }
]
