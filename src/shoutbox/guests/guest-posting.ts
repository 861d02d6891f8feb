import { NoPermission, TooManyRequests, type AddonContext, type Transaction } from '../../sdk/index.js'
import { InvalidProof, Muted, RoomArchived, WatchedWord } from '../errors.js'
import { assertPublishable } from '../message.js'
import { Publisher } from '../publisher.js'
import type { HeldWhy } from '../review.js'
import { guestsMayPost, type Room } from '../rooms.js'
import type { FullShout, Settings } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { WatchedWords } from '../word-list.js'
import { guestName } from './guest-name.js'
import { guestsRepository } from './guests-repository.js'
import { GuestProofs, proofsRepository } from './proof.js'

/** A room's guests together may post this many shouts a minute, from however many addresses. */
export const GUEST_SHOUTS_PER_ROOM_MINUTE = 30

const MINUTE_MS = 60_000

/** A guest's post, as its request gives it. */
export interface GuestPost {
  readonly name: string
  readonly message: string
  readonly proof: string
  /** The client's address: only its HMAC of the day is ever stored. */
  readonly ip: string
}

/**
 * A guest's post in `room` (which everyone may read): the room must let guests post (403
 * NO_PERMISSION otherwise; 409 ROOM_ARCHIVED in an archived room); then the message rules,
 * the name (2–24 characters that pass for no member's username: 400 NAME_TAKEN), the
 * watched words (a blocked word refuses it, a held one holds it, censored ones are
 * starred), a mute of the address (403 MUTED with `until`), the flood rules counted per
 * address — the board's `minSecondsBetweenShouts` (and the room's slow mode) and
 * `maxShoutsPerMinute` — and per room for all guests together (GUEST_SHOUTS_PER_ROOM_MINUTE),
 * then the proof of work (400 INVALID_PROOF: forged, expired or used). A post refused on
 * the way leaves the proof unused. With `holdGuestShouts` (the default) it waits for
 * review; else it is published at once, under the guest's name, with `guest: true`, and
 * notifies no one it names.
 */
export async function postAsGuest (ctx: AddonContext, room: Room, post: GuestPost): Promise<FullShout & { held?: true }> {
  if (room.archived) throw new RoomArchived()
  if (!guestsMayPost(room)) throw new NoPermission()
  const settings = await ShoutboxSettings.of(ctx).current()
  assertPublishable(post.message, settings.maxMessageLength)
  const name = await guestName(ctx, post.name)
  const verdict = (await WatchedWords.of(ctx).filter()).check(post.message)
  if (verdict.action === 'block') throw new WatchedWord()
  const proof = await GuestProofs.of(ctx).check(post.proof)
  if (proof === undefined) throw new InvalidProof()
  const [addressKey, ...earlier] = await ctx.addresses.recentKeysOf(post.ip)
  const guests = guestsRepository(ctx.db)
  const why: HeldWhy | undefined = verdict.action === 'hold' ? 'word' : settings.holdGuestShouts ? 'guest' : undefined
  const held = await ctx.transaction(async trx => {
    await guests.lockPosting(addressKey!, room.id, trx)
    const until = await guests.mutedUntil([addressKey!, ...earlier], Date.now(), trx)
    if (until !== undefined) throw new Muted(until)
    await admitGuest(ctx, addressKey!, room, settings, trx)
    if (!await proofsRepository(ctx.db).use(proof, addressKey!, room.id, trx)) throw new InvalidProof()
    if (why === undefined) return undefined
    return await guests.hold({ roomId: room.id, name, addressKey: addressKey!, message: verdict.message, why }, trx)
  })
  if (held !== undefined) {
    return { id: held.id, message: verdict.message, username: name, date: held.date, room: room.slug, replyTo: null, guest: true, reactions: [], held: true }
  }
  const shout = await Publisher.of(ctx).publishAsGuest(name, addressKey!, verdict.message, room)
  return { ...shout, guest: true, reactions: [] }
}

/**
 * The flood rules for a guest's post from `addressKey` in `room`, inside the transaction
 * that holds their locks: 429 TOO_MANY_REQUESTS with the seconds to wait.
 */
async function admitGuest (ctx: AddonContext, addressKey: string, room: Room, settings: Settings, trx: Transaction): Promise<void> {
  const guests = guestsRepository(ctx.db)
  const now = Date.now()
  const board = settings.minSecondsBetweenShouts * 1000
  const slow = room.slowModeSeconds * 1000
  const wait = (since: number | null, gap: number): number => since === null ? 0 : since + gap - now
  let retry = board === 0 ? 0 : wait((await guests.postsFrom(addressKey, now - board, trx)).last, board)
  const inMinute = await guests.postsFrom(addressKey, now - MINUTE_MS, trx)
  if (inMinute.lastMinute >= settings.maxShoutsPerMinute) retry = Math.max(retry, wait(inMinute.oldestInMinute, MINUTE_MS))
  if (slow > 0) retry = Math.max(retry, wait((await guests.postsFrom(addressKey, now - slow, trx, room.id)).last, slow))
  const roomWide = await guests.postsIn(room.id, now - MINUTE_MS, trx)
  if (roomWide.lastMinute >= GUEST_SHOUTS_PER_ROOM_MINUTE) retry = Math.max(retry, wait(roomWide.oldestInMinute, MINUTE_MS))
  if (retry > 0) throw new TooManyRequests(retry / 1000)
}
