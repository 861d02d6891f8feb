import { IdParamsSchema, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { AlreadyReported } from '../errors.js'
import { assertStorable } from '../message.js'
import { REPORT_REASONS, REPORTS_PER_HOUR, reportShout, type ReportReason } from '../review.js'

const ReportSchema = {
  params: IdParamsSchema,
  body: Type.Object({
    reason: Type.Unsafe<ReportReason>({ type: 'string', enum: [...REPORT_REASONS] }),
    note: Type.Optional(Type.String({ maxLength: 500, description: 'what the moderators should know' }))
  }, { additionalProperties: false })
}

/**
 * POST /api/shoutbox/shouts/:id/report {reason, note?} — a member reports a shout to the
 * moderators: one in a room they may read (404 otherwise, as for none), not their own
 * (403). One open report per member and shout (409 ALREADY_REPORTED); REPORTS_PER_HOUR an
 * hour (429). When `hideAfterReports` members whose accounts are older than
 * `reportMinAccountAgeHours` have reported it from as many addresses, it leaves the board
 * for the review queue (a shout of staff never does, nor one staff approved or kept).
 * Other reports queue. The reporter is told the outcome (a `report-resolved`
 * notification) once a moderator decides.
 */
export class ReportShout extends LoggedInApi<typeof ReportSchema> {
  readonly method = 'POST'
  readonly path = '/api/shoutbox/shouts/:id/report'
  readonly schema = ReportSchema
  override readonly answers = { ok: okAnswer({}, {}, `Reported; the moderators will look (at most ${REPORTS_PER_HOUR} an hour)`), errors: [NotFound, NoPermission, AlreadyReported, TooManyRequests] }

  async handle ({ ctx, viewer, ip, params, body }: SignedInCall<typeof ReportSchema>): Promise<Successful> {
    const note = body.note?.trim() ?? ''
    assertStorable(note, 'body/note')
    await reportShout(ctx, viewer, ip, Number(params.id), body.reason, note === '' ? null : note)
    return new Successful()
  }
}
