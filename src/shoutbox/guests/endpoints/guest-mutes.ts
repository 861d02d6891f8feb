import { NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../../sdk/index.js'
import { assertStorable } from '../../message.js'
import { ShoutIdSchema } from '../../schemas.js'
import { guestsRepository } from '../guests-repository.js'

/** A guest's address is muted for a day at most: what stands for it changes daily, and only today's and yesterday's are compared. */
export const MAX_GUEST_MUTE_MINUTES = 1440

const GuestMuteSchema = {
  body: Type.Object({
    shoutId: ShoutIdSchema,
    minutes: Type.Integer({ minimum: 1, maximum: MAX_GUEST_MUTE_MINUTES }),
    reason: Type.Optional(Type.String({ maxLength: 500 }))
  }, { additionalProperties: false })
}

const GuestMuteAnswer = Type.Object({
  shoutId: Type.Integer({ description: 'the guest\'s shout the mute was made by' }),
  until: Type.Integer({ description: 'ms since the epoch' }),
  reason: Type.Union([Type.String(), Type.Null()])
}, { additionalProperties: false })

/**
 * POST /api/panel/shoutbox/guest-mutes {shoutId, minutes, reason?} — a moderator
 * (MANAGE_SHOUTBOX) silences the address a guest's shout came from, for 1–1440 minutes:
 * its guests' posts are refused (403 MUTED with `until`) on every process. The address is
 * never shown, not even its HMAC. 404 for no such guest's shout, or one whose address is no
 * longer kept (over two days old). Logged MUTED_GUEST.
 */
export class MuteGuest extends PanelApi<typeof GuestMuteSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox/guest-mutes'
  override readonly closedToTokens = true
  readonly schema = GuestMuteSchema
  override readonly answers = {
    ok: okAnswer({ mute: GuestMuteAnswer }, { mute: { shoutId: 42, until: 1795003600000, reason: 'spam' } }),
    errors: [NoPermission, NotFound]
  }

  async handle (call: SignedInCall<typeof GuestMuteSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, body } = call
    const given = body.reason?.trim() ?? ''
    assertStorable(given, 'body/reason')
    const reason = given === '' ? null : given
    const guests = guestsRepository(ctx.db)
    const mute = await ctx.transaction(async trx => {
      const shout = await guests.find(body.shoutId, trx)
      if (shout?.addressKey === null || shout === undefined) throw new NotFound()
      const made = await guests.mute({ addressKey: shout.addressKey, until: Date.now() + body.minutes * 60_000, reason, shoutId: shout.id, byId: user.id }, trx)
      await ctx.activityLog.write({ type: 'MUTED_GUEST', user, details: { shoutId: shout.id, minutes: body.minutes, reason, ...(reason === null ? {} : { variant: 'reason' }) } }, trx)
      return made
    })
    return new Successful({ mute })
  }
}
