import {
  EmailNotVerified, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, okAnswer, type AddonContext, type MemberViewer, type SignedInCall, type Transaction
} from '../../sdk/index.js'
import { DuplicateShout, EditWindowClosed, MessageTooLong, Muted, RoomArchived, WatchedWord } from '../errors.js'
import { WatchedWords } from '../word-list.js'
import { admitPost } from '../flood-control.js'
import { assertPublishable } from '../message.js'
import { assertNotMuted } from '../mutes.js'
import { assertMayPost, floodRules, isNewMember, postInRoom } from '../posting.js'
import { withReactions } from '../reactions.js'
import type { HeldWhy } from '../review.js'
import { canRead, isConversation, Rooms, type Room } from '../rooms.js'
import { EditShoutSchema, MemberPostBodySchema, ROOM_SHOUT_EXAMPLE, FullShoutSchema, ShoutIdParamsSchema, type FullShout } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { deleteShout, editShout, takeShoutOff } from '../shout-changes.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * A shout's own path. Digits only, so `/api/shoutbox/list` and `/api/shoutbox/stream`
 * keep answering 404 to a PUT or DELETE (no such route) instead of "sign in first".
 */
const OWN_SHOUT = '/api/shoutbox/:id(^\\d+$)'

/**
 * POST /api/shoutbox — a member with POST_SHOUTS (or staff with MANAGE_SHOUTBOX) talks in
 * the default room: the same message rules as the panel's publish, then the flood rules
 * (staff with MANAGE_SHOUTBOX are exempt); no activity-log entry. Answers the shout as
 * stored. A muted member is refused first (MUTED). (`postInRoom`)
 */
const MemberPostSchema = { body: MemberPostBodySchema }

export class PostShout extends LoggedInApi<typeof MemberPostSchema> {
  readonly method = 'POST'
  readonly path = '/api/shoutbox'
  readonly schema = MemberPostSchema
  override readonly answers = {
    ok: okAnswer({ shout: FullShoutSchema }, { shout: ROOM_SHOUT_EXAMPLE }, 'The shout as stored'),
    errors: [NoPermission, EmailNotVerified, Muted, MessageTooLong, WatchedWord, DuplicateShout, TooManyRequests]
  }

  async handle ({ ctx, viewer, body }: SignedInCall<typeof MemberPostSchema>): Promise<Successful> {
    return new Successful({ shout: await postInRoom(ctx, viewer, await Rooms.of(ctx).general(), body.message, body.replyTo ?? null, body.uploads) })
  }
}

/**
 * PUT /api/shoutbox/:id — the author changes the text of their own shout, within
 * `editWindowSeconds` of posting; the same message rules, and the same flood rules as a
 * post (an edit is a way to say something: without them one member could send every
 * reader new text as fast as they liked). Its date stays the posting date. Posting
 * rights are needed still, and a muted member may not edit. A shout a moderator edited
 * or pinned is closed to its author: a pinned shout speaks for the board. An edit is held
 * for review (off the board, answered `held: true`) when it holds a held word, when its
 * author's shouts would be held now (`holdFirstShouts`), or when the shout was held and
 * approved: a moderator approved the text they saw, not the next one. Staff (holders
 * of MANAGE_SHOUTBOX) are exempt from the flood rules and holds, and their edit is logged
 * EDITED_SHOUT as in the panel: the feed is the staff's record.
 */
export class EditOwnShout extends LoggedInApi<typeof EditShoutSchema> {
  readonly method = 'PUT'
  readonly path = OWN_SHOUT
  readonly schema = EditShoutSchema
  override readonly answers = {
    ok: okAnswer({ shout: FullShoutSchema }, { shout: { ...ROOM_SHOUT_EXAMPLE, message: 'Hello, board (edited)' } }, 'The shout as edited; its date stays'),
    errors: [NoPermission, Muted, NotFound, EditWindowClosed, RoomArchived, MessageTooLong, WatchedWord, DuplicateShout, TooManyRequests]
  }

  async handle (call: SignedInCall<typeof EditShoutSchema>): Promise<Successful> {
    const { ctx, user, viewer } = call
    const { message } = call.body
    const id = Number(call.params.id)
    // Read before the transaction: the embedded database has one connection, which the transaction holds.
    const rooms = await Rooms.of(ctx).all()
    await assertNotMuted(ctx, user)
    const settings = await ShoutboxSettings.of(ctx).current()
    const staff = ctx.permissions.has(user, 'MANAGE_SHOUTBOX')
    const checked = await WatchedWords.of(ctx).check(user, message)
    const newMember = !staff && await isNewMember(ctx, user, settings.holdFirstShouts)
    const shout = await ctx.transaction(async trx => {
      const { date, moderated, pinned, approved, message: previousMessage, roomId } = await ownShout(ctx, id, viewer, rooms, trx)
      const room = rooms.find(each => each.id === roomId)
      if (room === undefined) throw new NotFound()
      assertMayPost(room, viewer)
      // A moderator's edit closes the window: the author may not put back what was taken
      // out; nor change what the board pinned.
      if (moderated || pinned || Date.now() - date >= settings.editWindowSeconds * 1000) throw new EditWindowClosed()
      assertPublishable(message, settings.maxMessageLength)
      if (!staff) await admitPost(user.id, checked.message, floodRules(settings, room), trx)
      // A held word, a member still new, or new text on a shout that needed approval: off
      // the board, with its new text, until a moderator approves it.
      // A conversation of two is never put before staff unasked: a word that would hold refuses the edit there.
      const direct = isConversation(room.slug)
      if (direct && checked.held) throw new WatchedWord()
      const why: HeldWhy | undefined = staff || direct ? undefined : checked.held ? 'word' : newMember ? 'new-member' : approved ? 'edited' : undefined
      if (why !== undefined) return await holdEdit(ctx, id, checked.message, why, trx)
      const edited = await editShout(ctx, id, checked.message, false, trx)
      if (staff && !direct) await ctx.activityLog.write({ type: 'EDITED_SHOUT', user, details: { id, message, previousMessage, room: room.slug } }, trx)
      return edited
    })
    if ('held' in shout) return new Successful({ shout })
    const [answered] = await withReactions(ctx, [shout], user)
    return new Successful({ shout: answered })
  }
}

/** Shout `id`, edited to `message`: off the board (as a delete, for readers), waiting for review with its new text, its id, reactions and replies kept. */
async function holdEdit (ctx: AddonContext, id: number, message: string, why: HeldWhy, trx: Transaction): Promise<FullShout & { held: true }> {
  const held = await takeShoutOff(ctx, id, 'held', why, message, trx)
  return { ...held, reactions: [], held: true }
}

/**
 * DELETE /api/shoutbox/:id — the author takes their own shout back, at any time (even
 * without posting rights any more, or while muted: taking words back is never refused),
 * through the same delete as the panel's. Staff's deletes are logged DELETED_SHOUT, as in
 * the panel.
 */
export class DeleteOwnShout extends LoggedInApi<typeof ShoutIdParamsSchema> {
  readonly method = 'DELETE'
  readonly path = OWN_SHOUT
  readonly schema = ShoutIdParamsSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof ShoutIdParamsSchema>): Promise<Successful> {
    const { ctx, user, viewer } = call
    const id = Number(call.params.id)
    // Read before the transaction: the embedded database has one connection, which the transaction holds.
    const rooms = await Rooms.of(ctx).all()
    await ctx.transaction(async trx => {
      await ownShout(ctx, id, viewer, rooms, trx)
      const shout = await deleteShout(ctx, id, trx)
      if (ctx.permissions.has(user, 'MANAGE_SHOUTBOX') && !isConversation(shout.room)) {
        await ctx.activityLog.write({ type: 'DELETED_SHOUT', user, details: { shoutId: shout.id, author: shout.username, message: shout.message, room: shout.room } }, trx)
      }
    })
    return new Successful()
  }
}

/**
 * The shout `id`, locked for `trx`, if `user` wrote it: NOT_FOUND when there is none — or
 * when it is someone else's in a room `user` may not read (it does not exist for them) —
 * and NO_PERMISSION when it is someone else's they can see.
 */
async function ownShout (ctx: AddonContext, id: number, viewer: MemberViewer, rooms: readonly Room[], trx: Transaction): Promise<{ message: string, date: number, moderated: boolean, pinned: boolean, approved: boolean, roomId: number }> {
  const found = await shoutsRepository(ctx.db).authorOf(id, trx)
  if (found === undefined) throw new NotFound()
  if (found.authorId !== viewer.user.id) {
    const room = rooms.find(each => each.id === found.roomId)
    throw room !== undefined && canRead(room, viewer) ? new NoPermission() : new NotFound()
  }
  return found
}
