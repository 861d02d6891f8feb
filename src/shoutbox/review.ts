import { BadRequest, NoPermission, NotFound, TooManyRequests, type Actor, type AddonContext, type Database, type MemberViewer, type SessionUser, type Transaction } from '../sdk/index.js'
import { AlreadyReported } from './errors.js'
import { countReviewDeletion } from './auto-silence.js'
import { lockFloodRow } from './flood-control.js'
import { muteMember } from './mutes.js'
import { Publisher } from './publisher.js'
import { Rooms, type Room } from './rooms.js'
import type { FullShout } from './schemas.js'
import { ShoutboxSettings } from './settings.js'
import { deleteShout } from './shout-changes.js'
import { shoutSubject, shoutsRepository } from './shouts-repository.js'
import { REPORTS_TABLE, REVIEW_TABLE, SHOUTS_TABLE } from './tables.js'
import { excerptOf } from './excerpt.js'

/*
 * The review queue: shouts a moderator decides on. A held shout (a watched word that
 * holds, or a new member's first shouts) never reached the board; a shout enough members
 * reported left it, as a delete does, until a moderator looks. Approving either puts it
 * on the board then, as a new shout; deleting it ends it; dismissing a shout's reports
 * closes them (and a hidden shout comes back).
 */

export const REPORT_REASONS = ['spam', 'abuse', 'off-topic', 'other'] as const
export type ReportReason = typeof REPORT_REASONS[number]
export const REVIEW_ACTIONS = ['approve', 'delete', 'dismiss'] as const
export type ReviewAction = typeof REVIEW_ACTIONS[number]

/** Why a shout is off the board: a watched word, a new member, or reports. */
export type HeldWhy = 'word' | 'new-member' | 'reports'

/** How many reports one member may make in an hour. */
export const REPORTS_PER_HOUR = 10
const HOUR_MS = 3_600_000

interface ReviewRow {
  id: number | string
  room_id: number
  author_id: number | null
  username: string
  message: string
  date: number | string
  reply_to_id: number | string | null
  state: 'held' | 'hidden'
  why: HeldWhy
  since: number | string
}

/** A shout off the board, as the queue keeps it. */
export interface OffBoard {
  readonly id: number
  readonly roomId: number
  readonly authorId: number | null
  readonly username: string
  readonly message: string
  readonly date: number
  readonly replyToId: number | null
  readonly state: 'held' | 'hidden'
  readonly why: HeldWhy
  readonly since: number
}

const offBoard = (row: ReviewRow): OffBoard => ({
  id: Number(row.id),
  roomId: row.room_id,
  authorId: row.author_id,
  username: row.username,
  message: row.message,
  date: Number(row.date),
  replyToId: row.reply_to_id === null ? null : Number(row.reply_to_id),
  state: row.state,
  why: row.why,
  since: Number(row.since)
})

/** `shoutbox_review`: the shouts off the board. */
export function reviewRepository (db: Database) {
  return {
    /** Puts a shout off the board; a held one takes a new id from the shouts' own sequence. */
    async put (shout: Omit<OffBoard, 'id' | 'since'> & { id?: number }, trx: Database = db): Promise<OffBoard> {
      const id = shout.id ?? Number((await trx.raw<{ rows: Array<{ id: string }> }>('select nextval(pg_get_serial_sequence(?, ?)) as id', [SHOUTS_TABLE, 'id'])).rows[0]!.id)
      const [row] = await trx(REVIEW_TABLE).insert({
        id, room_id: shout.roomId, author_id: shout.authorId, username: shout.username, message: shout.message, date: shout.date,
        reply_to_id: shout.replyToId, state: shout.state, why: shout.why, since: Date.now()
      }).returning<ReviewRow[]>('*')
      return offBoard(row!)
    },

    /** With a transaction, its row locked until the transaction ends. */
    async find (id: number, trx: Database = db): Promise<OffBoard | undefined> {
      const query = trx(REVIEW_TABLE).where({ id }).first<ReviewRow | undefined>()
      const row = await (trx.isTransaction === true ? query.forUpdate() : query)
      return row === undefined ? undefined : offBoard(row)
    },

    async remove (id: number, trx: Transaction): Promise<void> {
      await trx(REVIEW_TABLE).where({ id }).delete()
    },

    /** `authorId`'s own held shouts in `roomId`, newest first: their page shows them, waiting. */
    async heldOf (authorId: number, roomId: number): Promise<OffBoard[]> {
      const rows = await db(REVIEW_TABLE).where({ author_id: authorId, room_id: roomId, state: 'held' }).orderBy('id', 'desc').limit(20).select<ReviewRow[]>('*')
      return rows.map(offBoard)
    },

    async all (limit: number): Promise<OffBoard[]> {
      return (await db(REVIEW_TABLE).orderBy('id').limit(limit).select<ReviewRow[]>('*')).map(offBoard)
    },

    /** How many held shouts wait (hidden ones are counted with the reported). */
    async countHeld (): Promise<number> {
      const row = await db(REVIEW_TABLE).where({ state: 'held' }).count({ count: '*' }).first<{ count: number | string }>()
      return Number(row?.count ?? 0)
    }
  }
}

interface ReportRow { id: number, shout_id: number | string, user_id: number, reason: ReportReason, note: string | null, created_at: number | string }

/** An open report, as the queue shows it. */
export interface OpenReport {
  readonly id: number
  readonly shoutId: number
  readonly userId: number
  readonly reason: ReportReason
  readonly note: string | null
  readonly createdAt: number
}

/** `shoutbox_reports`. */
export function reportsRepository (db: Database) {
  return {
    /** Files `userId`'s report; false when they have one open on that shout already. */
    async file (shoutId: number, userId: number, reason: ReportReason, note: string | null, trx: Transaction): Promise<boolean> {
      const rows = await trx.raw<{ rows: unknown[] }>(`
        insert into ?? (shout_id, user_id, reason, note, created_at) values (?, ?, ?, ?, ?)
        on conflict (shout_id, user_id) where resolved_at is null do nothing returning 1`, [REPORTS_TABLE, shoutId, userId, reason, note, Date.now()])
      return rows.rows.length > 0
    },

    /** When each of `userId`'s reports of the last hour was made, oldest first. */
    async madeSince (userId: number, since: number, trx: Transaction): Promise<number[]> {
      const rows = await trx(REPORTS_TABLE).where({ user_id: userId }).where('created_at', '>', since).orderBy('created_at').select<Array<{ created_at: string | number }>>('created_at')
      return rows.map(row => Number(row.created_at))
    },

    /** How many members have a report open on `shoutId`. */
    async openCount (shoutId: number, trx: Transaction): Promise<number> {
      const row = await trx(REPORTS_TABLE).where({ shout_id: shoutId }).whereNull('resolved_at').count({ count: '*' }).first<{ count: number | string }>()
      return Number(row?.count ?? 0)
    },

    /** The open reports, oldest first (at most `limit` shouts' worth). */
    async open (limit: number): Promise<OpenReport[]> {
      const rows = await db(REPORTS_TABLE).whereNull('resolved_at')
        .whereIn('shout_id', db(REPORTS_TABLE).whereNull('resolved_at').distinct('shout_id').orderBy('shout_id').limit(limit))
        .orderBy('id').select<ReportRow[]>('id', 'shout_id', 'user_id', 'reason', 'note', 'created_at')
      return rows.map(row => ({ id: row.id, shoutId: Number(row.shout_id), userId: row.user_id, reason: row.reason, note: row.note, createdAt: Number(row.created_at) }))
    },

    /** How many shouts have open reports. */
    async openShouts (): Promise<number> {
      const row = await db(REPORTS_TABLE).whereNull('resolved_at').countDistinct({ count: 'shout_id' }).first<{ count: number | string }>()
      return Number(row?.count ?? 0)
    },

    /** Closes `shoutId`'s open reports with `outcome`; answers who made them. */
    async resolve (shoutId: number, outcome: ReviewAction, trx: Transaction): Promise<number[]> {
      const rows = await trx(REPORTS_TABLE).where({ shout_id: shoutId }).whereNull('resolved_at')
        .update({ resolved_at: Date.now(), outcome }).returning<Array<{ user_id: number }>>('user_id')
      return rows.map(row => row.user_id)
    }
  }
}

/** A held shout as its author sees it: the fields of a shout, and `held`. */
export function heldShout (shout: OffBoard, room: string): FullShout & { held: true } {
  return { id: shout.id, message: shout.message, username: shout.username, date: shout.date, room, replyTo: null, reactions: [], held: true }
}

/** Holds `user`'s shout in `room` for review: it is stored, shown to them and to staff, and on the board once approved. */
export async function holdShout (ctx: AddonContext, user: SessionUser, room: Room, message: string, replyTo: number | null, why: HeldWhy): Promise<FullShout & { held: true }> {
  const held = await reviewRepository(ctx.db).put({ roomId: room.id, authorId: user.id, username: user.username, message, date: Date.now(), replyToId: replyTo, state: 'held', why })
  return heldShout(held, room.slug)
}

/**
 * `user` reports shout `shoutId`: it must be in a room they may read (404, as for none),
 * not their own (403); one open report per member and shout (409 ALREADY_REPORTED); at
 * most REPORTS_PER_HOUR an hour (429). When `hideAfterReports` members have reports open
 * on it, it leaves the board for the queue — unless its author is staff.
 */
export async function reportShout (ctx: AddonContext, viewer: MemberViewer, shoutId: number, reason: ReportReason, note: string | null): Promise<void> {
  const { user } = viewer
  const { hideAfterReports } = await ShoutboxSettings.of(ctx).current()
  // Read before the transaction: the embedded database has one connection, which the transaction holds.
  const rooms = await Rooms.of(ctx).all()
  const found = await shoutsRepository(ctx.db).findWithAuthor(shoutId)
  const room = found === undefined ? undefined : rooms.find(each => each.id === found.roomId)
  if (found === undefined || room === undefined) throw new NotFound()
  await Rooms.of(ctx).readableBySlug(room.slug, viewer)
  if (found.authorId === user.id) throw new NoPermission()
  const author = found.authorId === null ? undefined : await ctx.users.find(found.authorId)
  const authorIsStaff = author !== undefined && ctx.permissions.has(author, 'MANAGE_SHOUTBOX')
  await ctx.transaction(async trx => {
    // The member's flood row, locked: their reports are counted one after the other, on every process.
    await lockFloodRow(user.id, ['author_id'], trx)
    const reports = reportsRepository(ctx.db)
    const now = Date.now()
    const recent = await reports.madeSince(user.id, now - HOUR_MS, trx)
    if (recent.length >= REPORTS_PER_HOUR) throw new TooManyRequests((recent[recent.length - REPORTS_PER_HOUR]! + HOUR_MS - now) / 1000)
    if (!await reports.file(shoutId, user.id, reason, note, trx)) throw new AlreadyReported()
    await ctx.webhooks.enqueue('report.created', [{ data: { shoutId, room: room.slug, reason, reporter: user.username }, subject: shoutSubject(shoutId) }], trx)
    if (hideAfterReports === 0 || authorIsStaff) return
    if (await reports.openCount(shoutId, trx) < hideAfterReports) return
    const shout = await shoutsRepository(ctx.db).findWithAuthor(shoutId, trx)
    if (shout === undefined) return
    await reviewRepository(ctx.db).put({
      id: shout.id, roomId: shout.roomId, authorId: shout.authorId, username: shout.username, message: shout.message, date: shout.date,
      replyToId: shout.replyTo === null ? null : shout.replyTo.id, state: 'hidden', why: 'reports'
    }, trx)
    await deleteShout(ctx, shoutId, trx)
  })
}

/** What a reporter is told, by what the moderator did. */
const OUTCOMES: Record<ReviewAction, string> = { approve: 'kept', delete: 'removed', dismiss: 'dismissed' }

/**
 * A moderator's decision on shout `shoutId` of the queue (held, hidden, or on the board
 * with open reports); 404 when it is in none. Logged APPROVED_SHOUT, DELETED_SHOUT or
 * DISMISSED_REPORTS, and MUTED_USER with `muteMinutes`; each reporter is notified.
 */
export async function review (ctx: AddonContext, moderator: SessionUser, shoutId: number, action: ReviewAction, muteMinutes: number | undefined): Promise<void> {
  const rooms = await Rooms.of(ctx).all()
  const settings = await ShoutboxSettings.of(ctx).current()
  let republish: OffBoard | undefined
  let reporters: number[] = []
  let about: { room: string, message: string, authorId: number | null } | undefined
  await ctx.transaction(async trx => {
    const queue = reviewRepository(ctx.db)
    const off = await queue.find(shoutId, trx)
    const on = off === undefined ? await shoutsRepository(ctx.db).findWithAuthor(shoutId, trx) : undefined
    const reports = reportsRepository(ctx.db)
    if (off === undefined && (on === undefined || await reports.openCount(shoutId, trx) === 0)) throw new NotFound()
    if (off?.state === 'held' && action === 'dismiss') throw new BadRequest({ reason: 'a held shout has no reports: approve or delete it' })
    const room = rooms.find(each => each.id === (off?.roomId ?? on!.roomId))
    about = { room: room?.slug ?? '', message: off?.message ?? on!.message, authorId: off?.authorId ?? on!.authorId }
    const details = { shoutId, author: off?.username ?? on!.username, message: about.message, room: about.room }
    reporters = await reports.resolve(shoutId, action, trx)
    if (action === 'delete') {
      if (off !== undefined) await queue.remove(shoutId, trx)
      else await deleteShout(ctx, shoutId, trx)
      await ctx.activityLog.write({ type: 'DELETED_SHOUT', user: moderator, details }, trx)
      if (about.authorId !== null) await countReviewDeletion(ctx, about.authorId, settings, trx)
    } else {
      if (off !== undefined) {
        await queue.remove(shoutId, trx)
        republish = off
      }
      await ctx.activityLog.write({ type: action === 'approve' ? 'APPROVED_SHOUT' : 'DISMISSED_REPORTS', user: moderator, details: { ...details, reports: reporters.length } }, trx)
    }
    if (muteMinutes !== undefined && about.authorId !== null) await muteMember(ctx, { userId: about.authorId, minutes: muteMinutes, reason: null, by: moderator }, trx)
    for (const reporter of reporters) {
      await ctx.notifications.notify(reporter, {
        kind: 'report-resolved', data: { shoutId, room: about.room, outcome: OUTCOMES[action], excerpt: excerptOf(about.message) }
      }, trx)
    }
  })
  if (republish !== undefined) {
    const room = rooms.find(each => each.id === republish!.roomId)
    const author: Actor = { id: republish.authorId ?? 0, username: republish.username }
    if (room !== undefined) await Publisher.of(ctx).publish(author, republish.message, { logged: false, room, replyTo: republish.replyToId })
  }
}
