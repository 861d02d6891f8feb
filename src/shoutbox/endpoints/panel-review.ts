import { BadRequest, IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { HELD_WHY, REPORT_REASONS, REVIEW_ACTIONS, reportsRepository, review, reviewRepository, type OpenReport, type ReviewAction } from '../review.js'
import { conversationsRepository } from '../direct/conversations-repository.js'
import { isConversation, Rooms } from '../rooms.js'
import { shoutsRepository } from '../shouts-repository.js'
import { picturesOf } from '../pictures/attachments.js'
import { ShoutPicturesSchema } from '../schemas.js'

/** How many messages before a reported direct message the queue shows with it. */
const REVIEW_CONTEXT = 5

/** The most shouts the queue answers at once (the oldest first). */
const QUEUE_PAGE = 100

const ReportSchema = Type.Object({
  id: Type.Integer(),
  reporter: Type.String({ description: "the reporter's username now" }),
  reason: Type.Unsafe({ type: 'string', enum: [...REPORT_REASONS] }),
  note: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Integer()
}, { additionalProperties: false })

const ItemSchema = Type.Object({
  shout: Type.Object({ id: Type.Integer(), message: Type.String(), username: Type.String(), date: Type.Integer(), room: Type.String(), uploads: Type.Optional(ShoutPicturesSchema) }, { additionalProperties: false }),
  state: Type.Unsafe({
    type: 'string', enum: ['held', 'hidden', 'reported'],
    description: 'held: never on the board yet; hidden: taken off it by reports; reported: on the board, with open reports'
  }),
  why: Type.Unsafe({ type: 'string', enum: [...HELD_WHY], description: 'a watched word that holds, a new member\'s shouts, new text on a shout held and approved, or reports' }),
  reports: Type.Array(ReportSchema, { description: 'the open ones, oldest first' }),
  context: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), message: Type.String(), username: Type.String(), date: Type.Integer() }, { additionalProperties: false }), {
    description: `a direct message's only: the ${REVIEW_CONTEXT} messages before it in its conversation, oldest first — nothing else of the conversation is shown`
  }))
}, { additionalProperties: false })

const EXAMPLE = {
  shout: { id: 42, message: 'BUY CHEAP followers', username: 'spammy', date: 1795000000000, room: 'general' },
  state: 'hidden', why: 'reports',
  reports: [{ id: 7, reporter: 'ayse', reason: 'spam', note: null, createdAt: 1795000100000 }]
}

/**
 * GET /api/panel/shoutbox/review — the review queue (MANAGE_SHOUTBOX): held shouts, shouts
 * hidden by reports, and shouts on the board with open reports, each with its open
 * reports; the oldest first, at most 100.
 */
export class ReviewQueue extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/review'
  readonly schema = {}
  override readonly answers = { ok: okAnswer({ items: Type.Array(ItemSchema), total: Type.Integer({ description: 'every shout waiting, when there are more than the page' }) }, { items: [EXAMPLE], total: 1 }), errors: [NoPermission] }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx } = call
    const rooms = await Rooms.of(ctx).all()
    const slugOf = (roomId: number): string => rooms.find(room => room.id === roomId)?.slug ?? ''
    const [off, reports] = await Promise.all([reviewRepository(ctx.db).all(QUEUE_PAGE), reportsRepository(ctx.db).open(QUEUE_PAGE)])
    const byShout = new Map<number, OpenReport[]>()
    for (const report of reports) byShout.set(report.shoutId, [...(byShout.get(report.shoutId) ?? []), report])
    const offIds = new Set(off.map(shout => shout.id))
    const onBoard = await Promise.all([...byShout.keys()].filter(id => !offIds.has(id)).map(id => shoutsRepository(ctx.db).findWithAuthor(id)))
    const names = await ctx.users.namesOf([...new Set(reports.map(report => report.userId))])
    const reportsOf = (id: number) => (byShout.get(id) ?? []).map(report => ({
      id: report.id, reporter: names.get(report.userId) ?? '?', reason: report.reason, note: report.note, createdAt: report.createdAt
    }))
    const conversations = conversationsRepository(ctx.db)
    // A reported direct message is judged with the few before it, and nothing more of its conversation.
    const contextOf = async (id: number, roomId: number, room: string) => isConversation(room) ? { context: await conversations.before(roomId, id, REVIEW_CONTEXT) } : {}
    // Their pictures too: staff see what would be shown (served to them while the shout waits).
    const pictures = await picturesOf(ctx, [...off.map(shout => shout.id), ...onBoard.flatMap(shout => shout === undefined ? [] : [shout.id])])
    const shown = (id: number) => {
      const uploads = pictures.get(id)
      return uploads === undefined ? {} : { uploads }
    }
    const items = [
      ...await Promise.all(off.map(async shout => ({
        shout: { id: shout.id, message: shout.message, username: shout.username, date: shout.date, room: slugOf(shout.roomId), ...shown(shout.id) },
        state: shout.state, why: shout.why, reports: reportsOf(shout.id), ...await contextOf(shout.id, shout.roomId, slugOf(shout.roomId))
      }))),
      ...await Promise.all(onBoard.flatMap(shout => shout === undefined
        ? []
        : [(async () => ({ shout: { id: shout.id, message: shout.message, username: shout.username, date: shout.date, room: shout.room, ...shown(shout.id) }, state: 'reported', why: 'reports', reports: reportsOf(shout.id), ...await contextOf(shout.id, shout.roomId, shout.room) }))()]))
    ].sort((a, b) => a.shout.id - b.shout.id)
    const total = await queueSize(call.ctx)
    return new Successful({ items, total })
  }
}

/** How many shouts wait for review: held ones, and those with open reports (on the board or hidden). */
export async function queueSize (ctx: SignedInCall['ctx']): Promise<number> {
  const [held, reported] = await Promise.all([reviewRepository(ctx.db).countHeld(), reportsRepository(ctx.db).openShouts()])
  return held + reported
}

const DecisionSchema = {
  params: Type.Object({ shoutId: IdParamsSchema.properties.id }),
  body: Type.Object({
    action: Type.Unsafe<ReviewAction>({
      type: 'string', enum: [...REVIEW_ACTIONS],
      description: 'approve: the shout is fine (a held or hidden one goes on the board as it was: its id, date, reactions and replies; reports no longer hide it); delete: it goes; dismiss: its reports are closed (a hidden one comes back as it was, and reports no longer hide it)'
    }),
    muteMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 525_600, description: 'also mutes its author, for this long' }))
  }, { additionalProperties: false })
}

/**
 * POST /api/panel/shoutbox/review/:shoutId {action, muteMinutes?} — decides on a shout of
 * the queue (MANAGE_SHOUTBOX); 404 for one that is in none. Logged APPROVED_SHOUT,
 * DELETED_SHOUT or DISMISSED_REPORTS (and MUTED_USER with `muteMinutes`); each reporter
 * gets a `report-resolved` notification. A held shout has no reports to dismiss (400).
 */
export class ReviewShout extends PanelApi<typeof DecisionSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox/review/:shoutId'
  readonly schema = DecisionSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [BadRequest, NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof DecisionSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, body } = call
    await review(ctx, user, Number(call.params.shoutId), body.action, body.muteMinutes)
    return new Successful()
  }
}
