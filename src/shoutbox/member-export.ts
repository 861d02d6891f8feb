import { keysetArray, type AddonContext, type Database, type MemberViewer, type StreamedObject } from '../sdk/index.js'
import { conversationsExport } from './direct/member-data.js'
import { IGNORES_TABLE, MUTES_TABLE, READ_MARKERS_TABLE, REACTIONS_TABLE, REPORTS_TABLE, ROOMS_TABLE, SHOUTS_TABLE } from './tables.js'

const ms = (value: number | string | null): number | null => value === null ? null : Number(value)

interface ShoutRow { id: number | string, room: string, message: string, date: number | string, reply_to_id: number | string | null, uploads: unknown[] | null }
interface HeldRow { id: number | string, room: string, message: string, date: number | string, state: string }
interface ReactionRow { shout_id: number | string, emoji: string, created_at: number | string }
interface ReportRow { id: number, shout_id: number | string, reason: string, note: string | null, created_at: number | string, resolved_at: number | string | null, outcome: string | null }
interface IgnoreRow { ignored_id: number, created_at: number | string }

/**
 * What the board stores about one member, for their data export: their shouts (with the
 * text as it is now), those waiting for review, their reactions, the reports they filed,
 * whom they ignore, how far they read each room, a mute in force on them, and the pictures
 * they uploaded. Rooms by
 * slug, people by name; nothing of anyone else's but the names they chose to ignore.
 *
 * The lists are read a batch at a time by keyset while the export is written (a member
 * may have hundreds of thousands of shouts); the read markers (one a room) and the mute
 * now. The shouts are those posted before the export started.
 */
export async function memberData (ctx: AddonContext, userId: number, reader: MemberViewer): Promise<StreamedObject> {
  const { db } = ctx
  // Their conversations of two are theirs and the other member's alone: an administrator's export of them leaves every trace out.
  const own = reader.userId === userId
  const rooms = (query: ReturnType<Database>): void => { if (!own) void query.whereIn('room_id', db(ROOMS_TABLE).where({ kind: 'room' }).select('id')) }
  const slug = (column: string) => db.raw(`(select slug from ${ROOMS_TABLE} where ${ROOMS_TABLE}.id = ${column}) as room`)
  const [last, markers, mute] = await Promise.all([
    db(SHOUTS_TABLE).where({ author_id: userId }).max<{ last: number | string | null }>('id as last').first(),
    db(READ_MARKERS_TABLE).where({ user_id: userId }).modify(rooms).select<Array<{ room: string, last_read_id: number | string, updated_at: number | string }>>(slug('room_id'), 'last_read_id', 'updated_at'),
    db(MUTES_TABLE).where({ user_id: userId }).first<{ until: number | string | null, reason: string | null, created_at: number | string } | undefined>('until', 'reason', 'created_at')
  ])
  const lastShout = Number(last?.last ?? 0)
  // Every picture they uploaded (attached or not yet): where it is served, its size, when.
  const pictures = (await ctx.pictures.uploadedBy(userId)).map(picture => ({ url: picture.url, thumbUrl: picture.thumbUrl, width: picture.width, height: picture.height, uploadedAt: picture.createdAt }))
  return {
    shouts: keysetArray<ShoutRow, number>({
      read: (after, limit) => db(SHOUTS_TABLE).where({ author_id: userId }).modify(rooms).whereNull('state').andWhere('id', '>', after ?? 0).andWhere('id', '<=', lastShout)
        .orderBy('id').limit(limit).select('id', slug('room_id'), 'message', 'date', 'reply_to_id', 'uploads'),
      key: row => Number(row.id),
      items: rows => rows.map(row => ({ id: Number(row.id), room: row.room, message: row.message, date: Number(row.date), replyTo: ms(row.reply_to_id), ...(row.uploads === null ? {} : { uploads: row.uploads }) }))
    }),
    waitingForReview: keysetArray<HeldRow, number>({
      read: (after, limit) => db(SHOUTS_TABLE).where({ author_id: userId }).modify(rooms).whereNotNull('state').andWhere('id', '>', after ?? 0)
        .orderBy('id').limit(limit).select('id', slug('room_id'), 'message', 'date', 'state'),
      key: row => Number(row.id),
      items: rows => rows.map(row => ({ room: row.room, message: row.message, date: Number(row.date), state: row.state }))
    }),
    reactions: keysetArray<ReactionRow, ReactionRow>({
      read: (after, limit) => db(REACTIONS_TABLE).where({ user_id: userId })
        .modify(query => { if (after !== undefined) void query.whereRaw('(created_at, shout_id, emoji) > (?, ?, ?)', [after.created_at, after.shout_id, after.emoji]) })
        .orderBy([{ column: 'created_at' }, { column: 'shout_id' }, { column: 'emoji' }]).limit(limit).select('shout_id', 'emoji', 'created_at'),
      key: row => row,
      items: rows => rows.map(row => ({ shout: Number(row.shout_id), emoji: row.emoji, createdAt: Number(row.created_at) }))
    }),
    reports: keysetArray<ReportRow, number>({
      read: (after, limit) => db(REPORTS_TABLE).where({ user_id: userId }).andWhere('id', '>', after ?? 0)
        .orderBy('id').limit(limit).select('id', 'shout_id', 'reason', 'note', 'created_at', 'resolved_at', 'outcome'),
      key: row => row.id,
      items: rows => rows.map(row => ({ shout: Number(row.shout_id), reason: row.reason, note: row.note, createdAt: Number(row.created_at), resolvedAt: ms(row.resolved_at), outcome: row.outcome }))
    }),
    ignored: keysetArray<IgnoreRow, IgnoreRow>({
      read: (after, limit) => db(IGNORES_TABLE).where({ user_id: userId })
        .modify(query => { if (after !== undefined) void query.whereRaw('(created_at, ignored_id) > (?, ?)', [after.created_at, after.ignored_id]) })
        .orderBy([{ column: 'created_at' }, { column: 'ignored_id' }]).limit(limit).select('ignored_id', 'created_at'),
      key: row => row,
      items: async rows => {
        const names = await ctx.users.namesOf(rows.map(row => row.ignored_id))
        return rows.map(row => ({ username: names.get(row.ignored_id) ?? null, since: Number(row.created_at) }))
      }
    }),
    readMarkers: markers.map(row => ({ room: row.room, lastReadId: Number(row.last_read_id), updatedAt: Number(row.updated_at) })),
    ...(own ? { conversations: await conversationsExport(ctx, userId) } : {}),
    mute: mute === undefined ? null : { until: ms(mute.until), reason: mute.reason, since: Number(mute.created_at) },
    pictures
  }
}
