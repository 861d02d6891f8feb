import { LoggedInApi, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { assertPublishable, assertStorable } from '../message.js'
import { announceToMember } from '../changes/notice.js'
import { mutesRepository } from '../mutes-repository.js'
import { muteMember, muteOf } from '../mutes.js'
import { MessageTooLong } from '../errors.js'
import {
  MUTE_EXAMPLE, ModeratorEditSchema, MuteAnswerSchema, MutedUserParamsSchema, MuteSchema, ROOM_SHOUT_EXAMPLE, FullShoutSchema, ShoutIdParamsSchema
} from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { AUTHOR_ANSWER, authorAccount } from '../authors.js'
import { withReactions } from '../reactions.js'
import { editShout } from '../shout-changes.js'
import { shoutsRepository } from '../shouts-repository.js'
import { isConversation } from '../rooms.js'

const LARGEST_USER_ID = 2_147_483_647

/**
 * PUT /api/panel/shoutbox/:id — a moderator changes the text of any shout, at any time;
 * the same message rules as publishing. Logged EDITED_SHOUT with the text before and
 * after; the lists and streams of every process follow, as for a member's own edit.
 */
export class EditAnyShout extends PanelApi<typeof ModeratorEditSchema> {
  readonly method = 'PUT'
  readonly path = '/api/panel/shoutbox/:id'
  readonly schema = ModeratorEditSchema
  override readonly answers = {
    ok: okAnswer({ shout: FullShoutSchema }, { shout: { ...ROOM_SHOUT_EXAMPLE, message: 'Hello, [removed]' } }, 'The shout as edited; its id, author and date stay'),
    errors: [NoPermission, NotFound, MessageTooLong]
  }

  async handle (call: SignedInCall<typeof ModeratorEditSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    const { message } = call.body
    const id = Number(call.params.id)
    assertPublishable(message, (await ShoutboxSettings.of(ctx).current()).maxMessageLength)
    const shout = await ctx.transaction(async trx => {
      const shouts = shoutsRepository(ctx.db)
      const before = await shouts.findWithAuthor(id, trx)
      // A direct message is its two members' alone: staff reach it only through a report, in the review queue.
      if (before === undefined || isConversation(before.room)) throw new NotFound()
      const shout = await editShout(ctx, id, message, true, trx)
      await ctx.activityLog.write({ type: 'EDITED_SHOUT', user, details: { id, message, previousMessage: before.message, room: before.room } }, trx)
      return shout
    })
    const [answered] = await withReactions(ctx, [shout], user)
    return new Successful({ shout: answered })
  }
}

/**
 * GET /api/panel/shoutbox/:id/author — who wrote a shout, for a moderator about to mute
 * them from the widget (the list names authors, not accounts). 404 when the shout is
 * gone or has no account behind it (shouts stored before authors were kept).
 */
export class ShoutAuthor extends PanelApi<typeof ShoutIdParamsSchema> {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/:id/author'
  readonly schema = ShoutIdParamsSchema
  override readonly answers = { ok: AUTHOR_ANSWER, errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof ShoutIdParamsSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    return new Successful({ author: await authorAccount(call.ctx, Number(call.params.id)) })
  }
}

/**
 * POST /api/panel/shoutbox/mutes — silences a member in the shoutbox for `minutes`, or
 * until lifted (`null`). A member already muted gets the new mute in place of the old.
 * Holders of MANAGE_SHOUTBOX cannot be muted. Logged MUTED_USER.
 */
export class MuteMember extends PanelApi<typeof MuteSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox/mutes'
  readonly schema = MuteSchema
  override readonly answers = { ok: okAnswer({ mute: MuteAnswerSchema }, { mute: MUTE_EXAMPLE }, 'The mute now in force'), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof MuteSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    const { userId, minutes } = call.body
    const given = call.body.reason ?? ''
    assertStorable(given, 'body/reason')
    const reason = given.trim() === '' ? null : given.trim()
    const mute = await ctx.transaction(trx => muteMember(ctx, { userId, minutes, reason, by: user }, trx))
    return new Successful({ mute })
  }
}

/** GET /api/panel/shoutbox/mutes — the mutes in force now, the latest made first (expired ones are over, and not listed). */
export class ListMutes extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/mutes'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ mutes: Type.Array(MuteAnswerSchema, { description: 'in force now, the latest made first' }) }, { mutes: [MUTE_EXAMPLE] }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    return new Successful({ mutes: await mutesRepository(call.ctx.db).list(Date.now()) })
  }
}

/** DELETE /api/panel/shoutbox/mutes/:userId — lifts a mute in force; 404 when the member has none. Logged UNMUTED_USER. */
export class LiftMute extends PanelApi<typeof MutedUserParamsSchema> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/shoutbox/mutes/:userId'
  readonly schema = MutedUserParamsSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof MutedUserParamsSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    const userId = Number(call.params.userId)
    if (userId > LARGEST_USER_ID) throw new NotFound()
    await ctx.transaction(async trx => {
      const lifted = await mutesRepository(ctx.db).lift(userId, Date.now(), trx)
      if (lifted === undefined) throw new NotFound()
      await ctx.activityLog.write({
        type: 'UNMUTED_USER', user, details: { userId, user: lifted.username, until: lifted.until, reason: lifted.reason }
      }, trx)
      await announceToMember(ctx, 'posting-changed', userId, trx)
    })
    return new Successful()
  }
}

/**
 * GET /api/shoutbox/me — the signed-in user's own posting state, for the widget's
 * composer: `mute` is `{until, reason}` while they are muted, else null. Only one's own.
 */
export class OwnPostingState extends LoggedInApi {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/me'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      mute: Type.Union([Type.Object({
        until: Type.Union([Type.Integer(), Type.Null()], { description: 'ms since the Unix epoch; null: until lifted' }),
        reason: Type.Union([Type.String(), Type.Null()])
      }, { additionalProperties: false }), Type.Null()], { description: 'null: they may post' })
    }, { mute: { until: 1795308600000, reason: 'spam' } }, "The signed-in user's own posting state")
  }

  async handle ({ ctx, user }: SignedInCall): Promise<Successful> {
    const mute = await muteOf(ctx, user)
    return new Successful({ mute: mute === undefined ? null : { until: mute.until, reason: mute.reason } })
  }
}
