import { BadRequest, NoPermission, NotFound, TooManyRequests, type Actor, type AddonContext, type Database, type MemberViewer, type SessionUser, type Transaction } from '../sdk/index.js'
import { AlreadyReported } from './errors.js'
import { countReviewDeletion } from './auto-silence.js'
import { lockFloodRow } from './flood-control.js'
import { muteMember } from './mutes.js'
import { canRead, isConversation, Rooms, type Room } from './rooms.js'
import { Mentions } from './mentions.js'
import type { FullShout, RoomShout, ShoutPicture } from './schemas.js'
import { ShoutboxSettings } from './settings.js'
import { deleteShout, restoreShout, takeShoutOff } from './shout-changes.js'
import { shoutSubject, shoutsRepository, type OffBoardState } from './shouts-repository.js'
import { REPORTS_TABLE, SHOUTS_TABLE } from './tables.js'
import { excerptOf } from './excerpt.js'

/*
 * The review queue: shouts a moderator decides on. A held shout (a watched word that
 * holds, a new member's first shouts, an edit that needs another look) is not on the
 * board; a shout enough members reported left it, as a delete does, until a moderator
 * looks. Either stays in the shouts table, marked (`state`), so approving it, or
 * dismissing its reports, puts it back as it was: its id, date, reactions and the replies
 * that quote it. Deleting it ends it.
 *
 * Reports hide a shout only when they are many, old and apart: `hideAfterReports`
 * reporters whose accounts are older than `reportMinAccountAgeHours`, from as many
 * addresses (compared as the HMAC of the day: see `AddonContext.addresses`). Younger
 * accounts' reports, and reports of a shout staff vouched for, queue without hiding.
 */

export const REPORT_REASONS = ['spam', 'abuse', 'off-topic', 'other'] as const
export type ReportReason = typeof REPORT_REASONS[number]
export const REVIEW_ACTIONS = ['approve', 'delete', 'dismiss'] as const
export type ReviewAction = typeof REVIEW_ACTIONS[number]

/** Why a shout is off the board: a watched word, a new member, an edit of an approved shout, reports, a guest's (`holdGuestShouts`), or pictures (`holdUploads`). */
export const HELD_WHY = ['word', 'new-member', 'edited', 'reports', 'guest', 'pictures'] as const
export type HeldWhy = typeof HELD_WHY[number]

/** How many reports one member may make in an hour. */
export const REPORTS_PER_HOUR = 10
const HOUR_MS = 3_600_000

interface OffBoardRow {
  id: number | string
  room_id: number
  author_id: number | null
  username: string
  message: string
  date: number | string
  reply_to_id: number | string | null
  state: OffBoardState
  why: HeldWhy
  since: number | string
  uploads: ShoutPicture[] | null
}

/** A shout off the board, as the queue shows it. */
export interface OffBoard {
  readonly id: number
  readonly roomId: number
  readonly authorId: number | null
  readonly username: string
  readonly message: string
  readonly date: number
  readonly replyToId: number | null
  readonly state: OffBoardState
  readonly why: HeldWhy
  readonly since: number
  /** Its pictures; null for none. */
  readonly uploads: ShoutPicture[] | null
}

const offBoard = (row: OffBoardRow): OffBoard => ({
  id: Number(row.id),
  roomId: row.room_id,
  authorId: row.author_id,
  username: row.username,
  message: row.message,
  date: Number(row.date),
  replyToId: row.reply_to_id === null ? null : Number(row.reply_to_id),
  state: row.state,
  why: row.why,
  since: Number(row.since),
  uploads: row.uploads
})

const OFF_BOARD_COLUMNS = ['id', 'room_id', 'author_id', 'username', 'message', 'date', 'reply_to_id', 'state', 'why', 'since', 'uploads'] as const

/** The shouts off the board (`state` held or hidden), as the review queue reads them. */
export function reviewRepository (db: Database) {
  return {
    /** Stores a shout held before it ever reached the board: no stream event, no webhook, until it is approved. */
    async hold (shout: Omit<OffBoard, 'id' | 'since' | 'state'> & { readonly via?: string }, trx: Database = db): Promise<OffBoard> {
      const [row] = await trx(SHOUTS_TABLE).insert({
        room_id: shout.roomId, author_id: shout.authorId, username: shout.username, message: shout.message, date: shout.date,
        reply_to_id: shout.replyToId, state: 'held', why: shout.why, since: Date.now(),
        // A shout that came in through an incoming hook keeps its hook's name: approved, it is a bot's shout as any other from the hook.
        ...(shout.via === undefined ? {} : { bot: true, via: shout.via }),
        uploads: shout.uploads === null ? null : JSON.stringify(shout.uploads)
      }).returning<OffBoardRow[]>([...OFF_BOARD_COLUMNS])
      return offBoard(row!)
    },

    /** The shout if it is off the board; with a transaction, its row locked until the transaction ends. */
    async find (id: number, trx: Database = db): Promise<OffBoard | undefined> {
      const query = trx(SHOUTS_TABLE).where({ id }).whereNotNull('state').first<OffBoardRow | undefined>(...OFF_BOARD_COLUMNS)
      const row = await (trx.isTransaction === true ? query.forUpdate() : query)
      return row === undefined ? undefined : offBoard(row)
    },

    /** Deletes a shout off the board (it has no events on the stream to take back); its reactions go with it. */
    async remove (id: number, trx: Transaction): Promise<void> {
      await trx(SHOUTS_TABLE).where({ id }).whereNotNull('state').delete()
    },

    /** `authorId`'s own held shouts in `roomId`, newest first: their page shows them, waiting. */
    async heldOf (authorId: number, roomId: number): Promise<OffBoard[]> {
      const rows = await db(SHOUTS_TABLE).where({ author_id: authorId, room_id: roomId, state: 'held' }).orderBy('id', 'desc').limit(20).select<OffBoardRow[]>(...OFF_BOARD_COLUMNS)
      return rows.map(offBoard)
    },

    async all (limit: number): Promise<OffBoard[]> {
      return (await db(SHOUTS_TABLE).whereNotNull('state').orderBy('id').limit(limit).select<OffBoardRow[]>(...OFF_BOARD_COLUMNS)).map(offBoard)
    },

    /** How many held shouts wait (hidden ones are counted with the reported). */
    async countHeld (): Promise<number> {
      const row = await db(SHOUTS_TABLE).where({ state: 'held' }).count({ count: '*' }).first<{ count: number | string }>()
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
    /**
     * Files `userId`'s report, made from the address that `addressKey` stands for; `weighs`:
     * it counts toward hiding the shout. False when they have one open on that shout already.
     */
    async file (report: { shoutId: number, userId: number, reason: ReportReason, note: string | null, weighs: boolean, addressKey: string }, trx: Transaction): Promise<boolean> {
      const rows = await trx.raw<{ rows: unknown[] }>(`
        insert into ?? (shout_id, user_id, reason, note, created_at, weighs, address_key) values (?, ?, ?, ?, ?, ?, ?)
        on conflict (shout_id, user_id) where resolved_at is null do nothing returning 1`,
      [REPORTS_TABLE, report.shoutId, report.userId, report.reason, report.note, Date.now(), report.weighs, report.addressKey])
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

    /**
     * How many addresses the open reports on `shoutId` that weigh come from (each one from
     * another member: one open report per member and shout). A report filed before
     * addresses were kept counts as its own address.
     */
    async weighingAddresses (shoutId: number, trx: Transaction): Promise<number> {
      const row = await trx(REPORTS_TABLE).where({ shout_id: shoutId, weighs: true }).whereNull('resolved_at')
        .first<{ count: number | string }>(trx.raw("count(distinct coalesce(address_key, 'user:' || user_id)) as count"))
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
  return { id: shout.id, message: shout.message, username: shout.username, date: shout.date, room, replyTo: null, ...(shout.uploads === null ? {} : { uploads: shout.uploads }), reactions: [], held: true }
}

/** Holds `user`'s shout in `room` for review: it is stored, shown to them and to staff, and on the board once approved. */
export async function holdShout (ctx: AddonContext, user: SessionUser, room: Room, message: string, replyTo: number | null, why: HeldWhy, uploads: ShoutPicture[] | null = null): Promise<FullShout & { held: true }> {
  const held = await reviewRepository(ctx.db).hold({ roomId: room.id, authorId: user.id, username: user.username, message, date: Date.now(), replyToId: replyTo, why, uploads })
  return heldShout(held, room.slug)
}

/**
 * `user`, at address `ip`, reports shout `shoutId`: it must be on the board in a room they
 * may read (404, as for none), not their own (403); one open report per member and shout
 * (409 ALREADY_REPORTED); at most REPORTS_PER_HOUR an hour (429). It leaves the board for
 * the queue when `hideAfterReports` members whose accounts are older than
 * `reportMinAccountAgeHours` have reports open on it from as many addresses — unless its
 * author is staff, or staff vouched for it (approved it, or kept it against reports).
 */
export async function reportShout (ctx: AddonContext, viewer: MemberViewer, ip: string, shoutId: number, reason: ReportReason, note: string | null): Promise<void> {
  const { user } = viewer
  const { hideAfterReports, reportMinAccountAgeHours } = await ShoutboxSettings.of(ctx).current()
  // Read before the transaction: the embedded database has one connection, which the transaction holds.
  const rooms = await Rooms.of(ctx).all()
  const found = await shoutsRepository(ctx.db).findWithAuthor(shoutId)
  const room = found === undefined ? undefined : rooms.find(each => each.id === found.roomId)
  if (found === undefined || room === undefined) throw new NotFound()
  // A conversation of two is reported by its other member; a room, by whoever may read it.
  if (room.members === undefined) await Rooms.of(ctx).readableBySlug(room.slug, viewer)
  else if (!canRead(room, viewer)) throw new NotFound()
  if (found.authorId === user.id) throw new NoPermission()
  const author = found.authorId === null ? undefined : await ctx.users.find(found.authorId)
  const authorIsStaff = author !== undefined && ctx.permissions.has(author, 'MANAGE_SHOUTBOX')
  const joined = await ctx.users.createdAt(user.id)
  const weighs = joined !== undefined && Date.now() - joined >= reportMinAccountAgeHours * HOUR_MS
  const addressKey = await ctx.addresses.keyOf(ip)
  await ctx.transaction(async trx => {
    // The member's flood row, locked: their reports are counted one after the other, on every process.
    await lockFloodRow(user.id, ['author_id'], trx)
    const reports = reportsRepository(ctx.db)
    const now = Date.now()
    const recent = await reports.madeSince(user.id, now - HOUR_MS, trx)
    if (recent.length >= REPORTS_PER_HOUR) throw new TooManyRequests((recent[recent.length - REPORTS_PER_HOUR]! + HOUR_MS - now) / 1000)
    if (!await reports.file({ shoutId, userId: user.id, reason, note, weighs, addressKey }, trx)) throw new AlreadyReported()
    if (room.members === undefined) await ctx.webhooks.enqueue('report.created', [{ data: { shoutId, room: room.slug, reason, reporter: user.username }, subject: shoutSubject(shoutId) }], trx)
    if (hideAfterReports === 0 || authorIsStaff || !weighs) return
    // Locked: two last reports at once count each other, and the shout is hidden once.
    const shout = await shoutsRepository(ctx.db).findWithAuthor(shoutId, trx)
    if (shout === undefined || shout.vouched) return
    if (await reports.weighingAddresses(shoutId, trx) < hideAfterReports) return
    await takeShoutOff(ctx, shoutId, 'hidden', 'reports', null, trx)
  })
}

/** What a reporter is told, by what the moderator did. */
const OUTCOMES: Record<ReviewAction, string> = { approve: 'kept', delete: 'removed', dismiss: 'dismissed' }

/**
 * A moderator's decision on shout `shoutId` of the queue (held, hidden, or on the board
 * with open reports); 404 when it is in none. Approving it, or dismissing its reports,
 * puts a held or hidden shout back on the board as it was, and vouches for it: reports
 * no longer hide it. Logged APPROVED_SHOUT, DELETED_SHOUT or DISMISSED_REPORTS, and
 * MUTED_USER with `muteMinutes`; each reporter is notified.
 */
export async function review (ctx: AddonContext, moderator: SessionUser, shoutId: number, action: ReviewAction, muteMinutes: number | undefined): Promise<void> {
  const rooms = await Rooms.of(ctx).all()
  const settings = await ShoutboxSettings.of(ctx).current()
  let restored: { shout: RoomShout, author: Actor } | undefined
  await ctx.transaction(async trx => {
    const queue = reviewRepository(ctx.db)
    const off = await queue.find(shoutId, trx)
    const on = off === undefined ? await shoutsRepository(ctx.db).findWithAuthor(shoutId, trx) : undefined
    const reports = reportsRepository(ctx.db)
    if (off === undefined && (on === undefined || await reports.openCount(shoutId, trx) === 0)) throw new NotFound()
    if (off?.state === 'held' && action === 'dismiss') throw new BadRequest({ reason: 'a held shout has no reports: approve or delete it' })
    const room = rooms.find(each => each.id === (off?.roomId ?? on!.roomId))
    const about = { room: room?.slug ?? '', message: off?.message ?? on!.message, authorId: off !== undefined ? off.authorId : on!.authorId, username: off?.username ?? on!.username }
    // A direct message's words stay out of the staff's record (the queue showed them, with the five before, to decide).
    const details = isConversation(about.room) ? { shoutId, author: about.username, room: about.room } : { shoutId, author: about.username, message: about.message, room: about.room }
    const reporters = await reports.resolve(shoutId, action, trx)
    if (action === 'delete') {
      if (off !== undefined) await queue.remove(shoutId, trx)
      else await deleteShout(ctx, shoutId, trx)
      await ctx.activityLog.write({ type: 'DELETED_SHOUT', user: moderator, details }, trx)
      if (about.authorId !== null) await countReviewDeletion(ctx, about.authorId, settings, trx)
    } else {
      if (off !== undefined) {
        const shout = await restoreShout(ctx, shoutId, off.state === 'held', settings.reactions, trx)
        if (about.authorId !== null) restored = { shout, author: { id: about.authorId, username: about.username } }
      } else await shoutsRepository(ctx.db).vouch(shoutId, trx)
      await ctx.activityLog.write({ type: action === 'approve' ? 'APPROVED_SHOUT' : 'DISMISSED_REPORTS', user: moderator, details: { ...details, reports: reporters.length } }, trx)
    }
    if (muteMinutes !== undefined && about.authorId !== null) await muteMember(ctx, { userId: about.authorId, minutes: muteMinutes, reason: null, by: moderator }, trx)
    for (const reporter of reporters) {
      await ctx.notifications.notify(reporter, {
        kind: 'report-resolved', data: { shoutId, room: about.room, outcome: OUTCOMES[action], excerpt: excerptOf(about.message) }
      }, trx)
    }
  })
  // Back on the board: whom it mentions hear of it now (a hidden shout's notifications went when it was hidden).
  if (restored !== undefined) Mentions.of(ctx).afterPublish(restored.shout, restored.author)
}
