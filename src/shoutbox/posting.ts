import { BadRequest, NoPermission, type AddonContext, type SessionUser } from '../sdk/index.js'
import { RoomArchived } from './errors.js'
import { admitPost, type FloodRules } from './flood-control.js'
import { assertPublishable } from './message.js'
import { assertNotMuted } from './mutes.js'
import { Publisher } from './publisher.js'
import { canPost, type Room } from './rooms.js'
import type { FullShout, Settings } from './schemas.js'
import { ShoutboxSettings } from './settings.js'
import { shoutsRepository } from './shouts-repository.js'

/* A member's post in a room, whichever path it comes by (`POST /api/shoutbox` in the default room, `POST /api/shoutbox/rooms/:slug/shouts`). */

/**
 * Posting rights in `room`: its `post` node (POST_SHOUTS in the default room), or
 * MANAGE_SHOUTBOX, whose holders may "post, edit and delete any shout" — a moderator's
 * role need not name the members' node as well. An archived room is read-only.
 */
export function assertMayPost (room: Room, user: SessionUser): void {
  if (!canPost(room, user)) throw new NoPermission()
  if (room.archived) throw new RoomArchived()
}

/** The board's flood rules, and `room`'s slow mode. */
export function floodRules (settings: Settings, room: Room): FloodRules {
  return { ...settings, room }
}

/**
 * A member's post in `room` (which the caller has found they may read): posting rights,
 * then mutes, the message rules, what it answers (a shout of the same room: 400
 * BAD_REQUEST for any other id), and the flood rules — with the room's slow mode — from
 * which staff are exempt. Answers the shout as stored (no reactions yet).
 */
export async function postInRoom (ctx: AddonContext, user: SessionUser, room: Room, message: string, replyTo: number | null = null): Promise<FullShout> {
  assertMayPost(room, user)
  await assertNotMuted(ctx, user)
  const settings = await ShoutboxSettings.of(ctx).current()
  assertPublishable(message, settings.maxMessageLength)
  if (replyTo !== null) await assertAnswerable(ctx, replyTo, room)
  if (!ctx.permissions.has(user, 'MANAGE_SHOUTBOX')) {
    await admitPost(ctx, user.id, message, floodRules(settings, room))
  }
  const shout = await Publisher.of(ctx).publish(user, message, { logged: false, room, replyTo })
  return { ...shout, reactions: [] }
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
