import { BadRequest, NotFound, TooManyRequests, isStorableText, UNSTORABLE_TEXT, type AddonContext } from '../../sdk/index.js'
import { RoomArchived, WatchedWord } from '../errors.js'
import { assertPublishable } from '../message.js'
import { Publisher } from '../publisher.js'
import { reviewRepository } from '../review.js'
import { Rooms } from '../rooms.js'
import { ShoutboxSettings } from '../settings.js'
import { WatchedWords } from '../word-list.js'
import { incomingHooksRepository } from './hooks-repository.js'

/** Posts a minute through one hook, on every process together. */
export const HOOK_POSTS_PER_MINUTE = 30
/** The longest sender's name a hook takes (Slack's and Discord's own limit). */
export const MAX_SENDER_NAME = 80

/** What a Slack- or Discord-shaped body holds that the board reads; everything else in it is ignored. */
export interface HookPayload {
  readonly text?: unknown
  readonly content?: unknown
  readonly username?: unknown
}

/** What came in through a hook: its shout's id and room, and `held` when it waits for review. */
export interface Relayed {
  readonly id: number
  readonly room: string
  readonly held?: true
}

/**
 * A Slack message's text as the text it shows: Slack's three escapes (`&amp;`, `&lt;`,
 * `&gt;`) read back, and its links (`<https://x|label>`, `<https://x>`) written out as
 * `label (https://x)` and `https://x`. Nothing is read as HTML.
 */
export function slackToText (text: string): string {
  return text
    .replace(/<(https?:\/\/[^|<>\s]+)\|([^<>]+)>/g, '$2 ($1)')
    .replace(/<(https?:\/\/[^|<>\s]+)>/g, '$1')
    .replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')
}

/**
 * The message and the sender's name of a hook's body: Discord's `content`, else Slack's
 * `text` (its escapes read back); `username` when given, spaces folded, at most
 * MAX_SENDER_NAME characters. Anything else → 400 BAD_REQUEST, saying what was wrong.
 */
export function readPayload (body: HookPayload): { message: string, username: string | undefined } {
  const message = typeof body.content === 'string' ? body.content : typeof body.text === 'string' ? slackToText(body.text) : undefined
  if (message === undefined) throw new BadRequest({ bodyValidationError: 'body must hold `text` (Slack) or `content` (Discord), a string' })
  if (body.username !== undefined && body.username !== null && typeof body.username !== 'string') throw new BadRequest({ bodyValidationError: 'body/username must be a string' })
  const username = typeof body.username === 'string' ? body.username.replace(/\s+/gu, ' ').trim() : ''
  if (!isStorableText(username)) throw new BadRequest({ bodyValidationError: `body/username ${UNSTORABLE_TEXT}` })
  if ([...username].length > MAX_SENDER_NAME) throw new BadRequest({ bodyValidationError: `body/username must not be longer than ${MAX_SENDER_NAME} characters` })
  return { message, username: username === '' ? undefined : username }
}

/**
 * A post to an incoming hook's URL. A wrong secret, an id of no hook and a removed hook
 * are one answer, 404 NOT_FOUND, as for no such address. Then, in order: the room must
 * not be archived (409 ROOM_ARCHIVED); HOOK_POSTS_PER_MINUTE a minute per hook, and one
 * per the room's slow mode (429 with Retry-After); the message rules (`maxMessageLength`);
 * the watched words, on the text and the sender's name (blocked → 400 WATCHED_WORD,
 * censored → starred, held → stored for review). The shout goes into the hook's room and
 * no other, as a bot's (`bot: true`, `via`: the hook's name), under the sender's name or
 * else the hook's; whoever may read that room sees it, nobody else. It notifies nobody.
 */
export async function postThroughHook (ctx: AddonContext, id: string, secret: string, body: HookPayload): Promise<Relayed> {
  const hooks = incomingHooksRepository(ctx.db)
  const hook = await hooks.verify(id, secret)
  const room = hook === undefined ? undefined : (await Rooms.of(ctx).all()).find(each => each.id === hook.roomId)
  if (hook === undefined || room === undefined) throw new NotFound()
  if (room.archived) throw new RoomArchived()
  const admission = await hooks.admit(hook.id, HOOK_POSTS_PER_MINUTE, room.slowModeSeconds * 1000)
  if (admission === 'gone') throw new NotFound()
  if (!admission.admitted) throw new TooManyRequests(admission.retryAfterMs / 1000)
  const payload = readPayload(body)
  const settings = await ShoutboxSettings.of(ctx).current()
  assertPublishable(payload.message, settings.maxMessageLength)
  const words = await WatchedWords.of(ctx).filter()
  const name = words.check(payload.username ?? hook.name)
  const said = words.check(payload.message)
  if (name.action === 'block' || said.action === 'block') throw new WatchedWord()
  if (name.action === 'hold' || said.action === 'hold') {
    const held = await reviewRepository(ctx.db).hold({
      roomId: room.id, authorId: null, username: name.message, message: said.message, date: Date.now(), replyToId: null, why: 'word', via: hook.name, uploads: null
    })
    return { id: held.id, room: room.slug, held: true }
  }
  const shout = await Publisher.of(ctx).relay(hook.name, name.message, said.message, room)
  return { id: shout.id, room: shout.room }
}
