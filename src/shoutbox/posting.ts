import { NoPermission, type AddonContext, type SessionUser } from '../sdk/index.js'
import { RoomArchived } from './errors.js'
import { admitPost, type FloodRules } from './flood-control.js'
import { assertPublishable } from './message.js'
import { assertNotMuted } from './mutes.js'
import { Publisher } from './publisher.js'
import { canPost, type Room } from './rooms.js'
import type { RoomShout, Settings } from './schemas.js'
import { ShoutboxSettings } from './settings.js'

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
 * then mutes, the message rules, and the flood rules — with the room's slow mode — from
 * which staff are exempt. Answers the shout as stored.
 */
export async function postInRoom (ctx: AddonContext, user: SessionUser, room: Room, message: string): Promise<RoomShout> {
  assertMayPost(room, user)
  await assertNotMuted(ctx, user)
  const settings = await ShoutboxSettings.of(ctx).current()
  assertPublishable(message, settings.maxMessageLength)
  if (!ctx.permissions.has(user, 'MANAGE_SHOUTBOX')) {
    await admitPost(ctx, user.id, message, floodRules(settings, room))
  }
  return Publisher.of(ctx).publish(user, message, { logged: false, room })
}
