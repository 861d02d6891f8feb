import { DELETED_USER_NAME, type AddonContext, type ErasureMode, type Transaction } from '../sdk/index.js'
import { announceChange } from './changes/notice.js'
import { deleteShout } from './shout-changes.js'
import { EVENTS_TABLE, FLOOD_CONTROL_TABLE, IGNORES_TABLE, MUTES_TABLE, READ_MARKERS_TABLE, REACTIONS_TABLE, REPORTS_TABLE, ROOMS_TABLE, SHOUTS_TABLE } from './tables.js'

const ms = (value: number | string | null): number | null => value === null ? null : Number(value)

/**
 * What the board stores about one member, for their data export: their shouts (with the
 * text as it is now), those waiting for review, their reactions, the reports they filed,
 * whom they ignore, how far they read each room, and a mute in force on them. Rooms by
 * slug, people by name; nothing of anyone else's but the names they chose to ignore.
 */
export async function memberData (ctx: AddonContext, userId: number): Promise<Record<string, unknown>> {
  const { db } = ctx
  const slug = (column: string) => db.raw(`(select slug from ${ROOMS_TABLE} where ${ROOMS_TABLE}.id = ${column}) as room`)
  const [shouts, waiting, reactions, reports, ignores, markers, mute] = await Promise.all([
    db(SHOUTS_TABLE).where({ author_id: userId }).whereNull('state').orderBy('id').select<Array<{ id: number | string, room: string, message: string, date: number | string, reply_to_id: number | string | null }>>(
      'id', slug('room_id'), 'message', 'date', 'reply_to_id'),
    db(SHOUTS_TABLE).where({ author_id: userId }).whereNotNull('state').orderBy('id').select<Array<{ room: string, message: string, date: number | string, state: string }>>(slug('room_id'), 'message', 'date', 'state'),
    db(REACTIONS_TABLE).where({ user_id: userId }).orderBy('created_at').select<Array<{ shout_id: number | string, emoji: string, created_at: number | string }>>('shout_id', 'emoji', 'created_at'),
    db(REPORTS_TABLE).where({ user_id: userId }).orderBy('id').select<Array<{ shout_id: number | string, reason: string, note: string | null, created_at: number | string, resolved_at: number | string | null, outcome: string | null }>>(
      'shout_id', 'reason', 'note', 'created_at', 'resolved_at', 'outcome'),
    db(IGNORES_TABLE).where({ user_id: userId }).orderBy('created_at').select<Array<{ ignored_id: number, created_at: number | string }>>('ignored_id', 'created_at'),
    db(READ_MARKERS_TABLE).where({ user_id: userId }).select<Array<{ room: string, last_read_id: number | string, updated_at: number | string }>>(slug('room_id'), 'last_read_id', 'updated_at'),
    db(MUTES_TABLE).where({ user_id: userId }).first<{ until: number | string | null, reason: string | null, created_at: number | string } | undefined>('until', 'reason', 'created_at')
  ])
  const names = await ctx.users.namesOf(ignores.map(row => row.ignored_id))
  return {
    shouts: shouts.map(row => ({ id: Number(row.id), room: row.room, message: row.message, date: Number(row.date), replyTo: ms(row.reply_to_id) })),
    waitingForReview: waiting.map(row => ({ room: row.room, message: row.message, date: Number(row.date), state: row.state })),
    reactions: reactions.map(row => ({ shout: Number(row.shout_id), emoji: row.emoji, createdAt: Number(row.created_at) })),
    reports: reports.map(row => ({ shout: Number(row.shout_id), reason: row.reason, note: row.note, createdAt: Number(row.created_at), resolvedAt: ms(row.resolved_at), outcome: row.outcome })),
    ignored: ignores.map(row => ({ username: names.get(row.ignored_id) ?? null, since: Number(row.created_at) })),
    readMarkers: markers.map(row => ({ room: row.room, lastReadId: Number(row.last_read_id), updatedAt: Number(row.updated_at) })),
    mute: mute === undefined ? null : { until: ms(mute.until), reason: mute.reason, since: Number(mute.created_at) }
  }
}

/**
 * A deleted account, inside the transaction that deletes it: its reactions, ignore lists
 * (its own, and its place in others'), read markers, flood counts, mute and held shouts go.
 * Its shouts go too (`delete`, each as a moderator's delete: events, notices, webhooks), or
 * stay under the name `deleted user` with no author (`anonymise`): the stream's history
 * and the replies' quotes say so too, and every process makes its kept lists anew. The
 * reports it filed stay: they are the moderators' record, and name no one but the shout.
 */
export async function eraseMember (ctx: AddonContext, userId: number, mode: ErasureMode, trx: Transaction): Promise<void> {
  await trx(REACTIONS_TABLE).where({ user_id: userId }).delete()
  await trx(IGNORES_TABLE).where({ user_id: userId }).orWhere({ ignored_id: userId }).delete()
  await trx(READ_MARKERS_TABLE).where({ user_id: userId }).delete()
  await trx(FLOOD_CONTROL_TABLE).where({ author_id: userId }).delete()
  await trx(MUTES_TABLE).where({ user_id: userId }).delete()
  // Its shouts off the board (held, or hidden by reports) are no one's to read: they go, whatever the mode.
  await trx(SHOUTS_TABLE).where({ author_id: userId }).whereNotNull('state').delete()
  if (mode === 'delete') {
    const ids = await trx(SHOUTS_TABLE).where({ author_id: userId }).orderBy('id').pluck('id')
    for (const id of ids) await deleteShout(ctx, Number(id), trx)
    return
  }
  const renamed: Array<{ id: number | string }> = await trx(SHOUTS_TABLE).where({ author_id: userId })
    .update({ username: DELETED_USER_NAME, author_id: null }).returning('id')
  if (renamed.length === 0) return
  const ids = renamed.map(row => Number(row.id))
  await trx.raw(`update ?? set shout = jsonb_set(shout, '{username}', to_jsonb(?::text))
    where (shout->>'id')::bigint = any(?) and shout->>'username' is not null`, [EVENTS_TABLE, DELETED_USER_NAME, ids])
  await trx.raw(`update ?? set shout = jsonb_set(shout, '{replyTo,username}', to_jsonb(?::text))
    where (shout->'replyTo'->>'id')::bigint = any(?) and shout->'replyTo'->>'username' is not null`, [EVENTS_TABLE, DELETED_USER_NAME, ids])
  await announceChange(ctx, 'authors-renamed', [], trx)
}
