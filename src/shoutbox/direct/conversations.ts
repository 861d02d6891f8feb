import { BadRequest, NoPermission, TooManyRequests, type AddonContext, type MemberViewer } from '../../sdk/index.js'
import { countFloodRefusal } from '../auto-silence.js'
import { announceChange } from '../changes/notice.js'
import { WatchedWord } from '../errors.js'
import { excerptOf } from '../excerpt.js'
import { admitPost } from '../flood-control.js'
import { ignoresRepository } from '../ignores.js'
import { assertPublishable } from '../message.js'
import { muteOf } from '../mutes.js'
import { Publisher } from '../publisher.js'
import { readMarkersRepository } from '../read-markers.js'
import type { FullShout } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'
import { WatchedWords } from '../word-list.js'
import { conversationsRepository, pairOf } from './conversations-repository.js'

/** Conversations a member may start in an hour. */
export const NEW_CONVERSATIONS_PER_HOUR = 10
const HOUR_MS = 3_600_000

/** Conversations have no slow mode, and are counted as one place: the member's row does not grow a key per conversation. */
const DIRECT_FLOOD_ROOM = { id: 0, slowModeSeconds: 0 }

/** The name shown for a member who was erased. */
const DELETED_USER = 'deleted user'

/** A conversation in its member's list. */
export interface Conversation {
  readonly id: number
  readonly with: { readonly username: string }
  readonly last: { readonly id: number, readonly username: string, readonly message: string, readonly date: number } | null
  /** Messages of the other member newer than the caller's marker (counted up to 100). */
  readonly unread: number
}

/** What a conversation's notification is about, for its reader: one a conversation, replaced by the next message. */
export const directKey = (conversationId: number, readerId: number): string => `direct:${conversationId}:${readerId}`

/** The caller's conversations, the most recently active first, with their unread counts. */
export async function conversationsOf (ctx: AddonContext, viewer: MemberViewer): Promise<Conversation[]> {
  const { user } = viewer
  const rows = await conversationsRepository(ctx.db).of(user.id)
  const others = rows.flatMap(row => row.other === null ? [] : [row.other])
  const [names, states] = await Promise.all([
    ctx.users.namesOf([...new Set(others)]),
    readMarkersRepository(ctx.db).states(user.id, rows.map(row => row.id))
  ])
  return rows.map(row => ({
    id: row.id,
    with: { username: row.other === null ? DELETED_USER : names.get(row.other) ?? DELETED_USER },
    last: row.last,
    unread: states.get(row.id)?.unread ?? 0
  }))
}

/**
 * `viewer` writes `message` to the member named `username`, in their conversation (started
 * now when they have none). The message's own rules come first (its length, a watched word
 * that blocks — or holds: a conversation is never put before staff unasked). Then whether
 * they may write at all: the feature off, no such active account (or oneself), either of
 * them ignoring the other, the other accepting no one, or the writer muted — one answer
 * for all, 403 NO_PERMISSION with no more said, after the same reads on every path. Then
 * flood control (a refusal counts toward the board's own silence) and, for a new
 * conversation, NEW_CONVERSATIONS_PER_HOUR (429). The other member is notified (kind
 * `direct`: one notification a conversation, the newest message's).
 */
export async function writeDirect (ctx: AddonContext, viewer: MemberViewer, username: string, message: string, replyTo: number | null): Promise<{ conversation: number, shout: FullShout }> {
  const { user } = viewer
  const settings = await ShoutboxSettings.of(ctx).current()
  assertPublishable(message, settings.maxMessageLength)
  const words = await WatchedWords.of(ctx).check(user, message)
  if (words.held) throw new WatchedWord()
  const conversations = conversationsRepository(ctx.db)
  const ignores = ignoresRepository(ctx.db)
  // The same reads whoever the target and whatever the reason: the answer's time tells nothing either.
  const [target] = await ctx.users.findByNames([username])
  const targetId = target?.id ?? 0
  const [theyIgnore, iIgnore, accepts, mute, existing] = await Promise.all([
    ignores.has(targetId, user.id),
    ignores.has(user.id, targetId),
    conversations.accepts(targetId),
    muteOf(ctx, user),
    conversations.between(user.id, targetId)
  ])
  const refused = [!settings.directMessages, target === undefined, targetId === user.id, target?.bot === true, theyIgnore, iIgnore, accepts === 'nobody', mute !== undefined]
  if (refused.some(Boolean)) throw new NoPermission()
  const other = target!
  if (replyTo !== null && (existing === undefined || (await shoutsRepository(ctx.db).find(replyTo))?.room !== `~${existing}`)) {
    throw new BadRequest({ reason: 'replyTo is not a message of this conversation' })
  }
  let room: { id: number, slug: string }
  try {
    room = await ctx.transaction(async trx => {
      // Counted as the board's flood rules count any post (the member's row, locked: their starts are counted one after the other).
      await admitPost(user.id, words.message, { ...settings, room: DIRECT_FLOOD_ROOM }, trx)
      const there = await conversations.between(user.id, other.id, trx)
      if (there !== undefined) return { id: there, slug: `~${there}` }
      const now = Date.now()
      const started = await conversations.startedSince(user.id, now - HOUR_MS, trx)
      if (started.length >= NEW_CONVERSATIONS_PER_HOUR) throw new TooManyRequests((started[started.length - NEW_CONVERSATIONS_PER_HOUR]! + HOUR_MS - now) / 1000)
      const made = await conversations.start(user.id, other.id, trx)
      if (made.started) await announceChange(ctx, 'rooms', [], trx)
      return made
    })
  } catch (error) {
    if (error instanceof TooManyRequests) await countFloodRefusal(ctx, user, settings)
    throw error
  }
  const shout = await Publisher.of(ctx).publish(user, words.message, { logged: false, room, replyTo })
  await notifyOther(ctx, room.id, other.id, { shoutId: shout.id, by: user.username, excerpt: excerptOf(shout.message) })
  return { conversation: room.id, shout: { ...shout, reactions: [] } }
}

/** Tells `readerId` of a new message in conversation `id`: their earlier notification of it goes, this one takes its place. */
async function notifyOther (ctx: AddonContext, id: number, readerId: number, about: { shoutId: number, by: string, excerpt: string }): Promise<void> {
  const key = directKey(id, readerId)
  try {
    await ctx.transaction(async trx => {
      await ctx.notifications.remove([key], trx)
      await ctx.notifications.notify(readerId, { kind: 'direct', data: { conversation: id, room: `~${id}`, ...about }, key }, trx)
    })
  } catch (error) {
    // The message is written; a notification that could not be is logged, never the writer's failure.
    ctx.log.warn({ err: error, conversation: id }, 'could not notify of a direct message')
  }
}

/** The members of conversation `id` other than `userId`, from its pair. */
export function otherMember (members: readonly [number | null, number | null], userId: number): number | null {
  const [low, high] = members
  return low === userId ? high : low
}

export { pairOf }
