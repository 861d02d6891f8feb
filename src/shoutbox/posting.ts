import { BadRequest, EmailNotVerified, NoPermission, TooManyRequests, type AddonContext, type MemberViewer, type SessionUser, type Viewer } from '../sdk/index.js'
import { countFloodRefusal } from './auto-silence.js'
import { RoomArchived } from './errors.js'
import { admitPost, type FloodRules } from './flood-control.js'
import { assertPublishable } from './message.js'
import { assertNotMuted } from './mutes.js'
import { Publisher } from './publisher.js'
import { holdShout } from './review.js'
import { canPost, type Room } from './rooms.js'
import type { AttachedPicture, FullShout, Settings } from './schemas.js'
import { ShoutboxSettings } from './settings.js'
import { shoutsRepository } from './shouts-repository.js'
import { WatchedWords } from './word-list.js'
import { attachPictures } from './pictures/attachments.js'

/* A member's post in a room, whichever path it comes by (`POST /api/shoutbox` in the default room, `POST /api/shoutbox/rooms/:slug/shouts`). */

/**
 * Posting rights in `room`: its `post` node (POST_SHOUTS in the default room), or
 * MANAGE_SHOUTBOX, whose holders may "post, edit and delete any shout" — a moderator's
 * role need not name the members' node as well. An archived room is read-only.
 */
export function assertMayPost (room: Room, viewer: Viewer): void {
  if (!canPost(room, viewer)) throw new NoPermission()
  if (room.archived) throw new RoomArchived()
}

/** The board's flood rules, and `room`'s slow mode. */
export function floodRules (settings: Settings, room: Room): FloodRules {
  return { ...settings, room }
}

/**
 * A member's post in `room` (which the caller has found they may read): posting rights,
 * a confirmed address when the site asks for one (403 EMAIL_NOT_VERIFIED), then mutes, the message rules, what it answers (a shout of the same room: 400
 * BAD_REQUEST for any other id), the watched words (a blocked one refuses it, censored
 * ones are starred) and the flood rules — with the room's slow mode (a member refused
 * too often is silenced by the board). A held word, or a member with fewer than
 * `holdFirstShouts` shouts on the board (for a shout with pictures, with `holdUploads`: fewer
 * than one), holds the shout for review: it is answered with
 * `held: true` and shown to its author alone until a moderator approves it. Staff are
 * exempt from all of these. Answers the shout as stored (no reactions yet).
 */
export async function postInRoom (ctx: AddonContext, viewer: MemberViewer, room: Room, message: string, replyTo: number | null = null, attached?: readonly AttachedPicture[]): Promise<FullShout & { held?: true }> {
  const { user } = viewer
  assertMayPost(room, viewer)
  // The site asks newcomers to confirm their address first (the host's `verifyEmail`).
  if (user.emailUnconfirmed === true) throw new EmailNotVerified()
  await assertNotMuted(ctx, user)
  const settings = await ShoutboxSettings.of(ctx).current()
  assertPublishable(message, settings.maxMessageLength)
  if (replyTo !== null) await assertAnswerable(ctx, replyTo, room)
  const uploads = await attachPictures(ctx, user, attached)
  const checked = await WatchedWords.of(ctx).check(user, message)
  if (!ctx.permissions.has(user, 'MANAGE_SHOUTBOX')) {
    try {
      await ctx.transaction(trx => admitPost(user.id, checked.message, floodRules(settings, room), trx))
    } catch (error) {
      if (error instanceof TooManyRequests) await countFloodRefusal(ctx, user, settings)
      throw error
    }
    if (checked.held) return await holdShout(ctx, user, room, checked.message, replyTo, 'word', uploads)
    if (await isNewMember(ctx, user, settings.holdFirstShouts)) return await holdShout(ctx, user, room, checked.message, replyTo, 'new-member', uploads)
    // A new account's pictures are looked at first (holdUploads), even where its words are not.
    if (uploads !== null && settings.holdUploads && await isNewMember(ctx, user, Math.max(settings.holdFirstShouts, 1))) {
      return await holdShout(ctx, user, room, checked.message, replyTo, 'pictures', uploads)
    }
  }
  const shout = await Publisher.of(ctx).publish(user, checked.message, { logged: false, room, replyTo, uploads })
  return { ...shout, reactions: [] }
}

/** A member with fewer than `holdFirstShouts` shouts on the board: their next one (or edit) waits for review. */
export async function isNewMember (ctx: AddonContext, user: SessionUser, holdFirstShouts: number): Promise<boolean> {
  if (holdFirstShouts === 0) return false
  return await shoutsRepository(ctx.db).countByAuthor(user.id, holdFirstShouts) < holdFirstShouts
}

/**
 * A reply answers a shout of its own room, which its author can read: an id of no shout,
 * or of one in another room (which they may not be able to read), is the same 400, so the
 * answer tells nothing of other rooms.
 */
async function assertAnswerable (ctx: AddonContext, id: number, room: Room): Promise<void> {
  const original = await shoutsRepository(ctx.db).find(id)
  if (original?.room !== room.slug) throw new BadRequest({ reason: 'replyTo is not a shout of this room' })
}
