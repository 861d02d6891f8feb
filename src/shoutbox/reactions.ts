import { BadRequest, NotFound, type AddonContext, type MemberViewer, type SessionUser } from '../sdk/index.js'
import { Muted } from './errors.js'
import { announceChange } from './changes/notice.js'
import { perContext } from './per-context.js'
import { REACTIONS_EVENT_EVERY_MS, reactionsRepository } from './reactions-repository.js'
import { assertMayPost } from './posting.js'
import { canRead, Rooms } from './rooms.js'
import type { Reaction } from './schemas.js'
import { ShoutboxSettings } from './settings.js'
import { shoutsRepository } from './shouts-repository.js'
import { StreamHub } from './stream-hub.js'

/** The shout was deleted while a reaction to it was being stored. */
const PG_FOREIGN_KEY_VIOLATION = '23503'

/**
 * How long a reaction waits at most for a delivery under way to every reader of this
 * process (a publish's event to 10,000 streams takes about 100 ms of one core): the
 * reaction's answer waits, the readers do not.
 */
const YIELD_TO_DELIVERY_MS = 250
/** Pending counts are sent at multiples of this: those of shouts due within one step go together. */
const ANNOUNCE_GRID_MS = 500

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })
/** A grapheme that is an emoji: it starts with a pictograph, a flag's letters or a keycap's digit and ends as one. */
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[0-9#*]\uFE0F?\u20E3)/u

/** True when `text` is one grapheme, and an emoji. */
export function isSingleEmoji (text: string): boolean {
  const [first, second] = graphemes.segment(text)
  return first !== undefined && second === undefined && EMOJI.test(text) && !/\s/u.test(text)
}

/** The `reactions` setting: each one emoji (400 BAD_REQUEST naming the first that is not). */
export function assertReactionSet (set: readonly string[]): void {
  const wrong = set.find(item => !isSingleEmoji(item))
  if (wrong !== undefined) throw new BadRequest({ reason: 'each reaction is one emoji', value: wrong })
}

/**
 * Members' reactions, and their stream events. A change is one statement (the member's
 * reaction and their count against the limit); then, if the shout's counts last went on
 * the stream a second ago or more, they go now; else they are marked pending and this
 * process sends them when the second is up — with every change made meanwhile, in any
 * process (whichever process comes first writes the event; the others find nothing
 * pending). So a shout's counts go on the stream at most once a second, however many
 * members react at once, and members reacting together never queue behind one lock.
 * Pending counts are sent on a half-second grid, so those of shouts due within the same
 * half second go together: one change, one write to each stream, not one a shout.
 */
export class Reactions {
  static readonly of = perContext(ctx => new Reactions(ctx))
  /** The pending announcements this process will make, by the time on the grid they are due at: the shouts, and the timer. */
  private readonly ticks = new Map<number, { readonly shouts: Set<number>, readonly timer: NodeJS.Timeout }>()
  /** The shouts among them. */
  private readonly waiting = new Set<number>()
  /** Those whose announcement failed after its claim: announced whether or not marked pending. */
  private readonly retrying = new Set<number>()
  private stopped = false

  private constructor (private readonly ctx: AddonContext) {}

  /**
   * `user` adds (`on`) or takes back their `emoji` on shout `shoutId`. The shout must be in
   * a room they may read (else 404, as for a shout that does not exist) and post in (403;
   * 409 in an archived room); a muted member may not react; the emoji must be one of the
   * site's set (400). Answers the shout's counts, with `mine`.
   */
  async react (viewer: MemberViewer, shoutId: number, emoji: string, on: boolean): Promise<Reaction[]> {
    const { ctx } = this
    const { user } = viewer
    const settings = await ShoutboxSettings.of(ctx).current()
    if (!settings.reactions.includes(emoji)) throw new BadRequest({ reason: 'not one of the site\'s reactions', reactions: settings.reactions })
    // Readers first: a delivery under way to every stream here ends before this one's work begins.
    await StreamHub.of(ctx).delivered(YIELD_TO_DELIVERY_MS)
    const repository = reactionsRepository(ctx.db)
    // Holders of MANAGE_SHOUTBOX are never muted (a mute left from before does not hold them).
    const [rooms, target] = await Promise.all([Rooms.of(ctx).all(), repository.target(shoutId, user.id, Date.now(), !ctx.permissions.has(user, 'MANAGE_SHOUTBOX'))])
    if (target.muted) throw new Muted(target.until)
    const room = rooms.find(each => each.id === target.roomId)
    if (room === undefined || !canRead(room, viewer)) throw new NotFound()
    assertMayPost(room, viewer)
    let changed: boolean
    try {
      changed = await repository.change(shoutId, user.id, emoji, on)
    } catch (error) {
      // Deleted since it was found: as if it never was.
      if ((error as { code?: unknown }).code === PG_FOREIGN_KEY_VIOLATION) throw new NotFound()
      throw error
    }
    const answer = { set: settings.reactions, viewerId: user.id }
    if (changed) return await this.announce(shoutId, answer)
    return (await repository.of([shoutId], settings.reactions, user.id)).get(shoutId) ?? []
  }

  /**
   * Announces the shout's pending counts at the first point of the half-second grid from
   * `dueAt` (with any other shout's due then), unless this process already will. With
   * `retry`, the counts are announced whether or not they are marked pending (an
   * announcement that failed after its claim).
   */
  private announceLater (shoutId: number, dueAt: number, retry = false): void {
    if (retry) this.retrying.add(shoutId)
    if (this.stopped || this.waiting.has(shoutId)) return
    this.waiting.add(shoutId)
    const at = Math.ceil(dueAt / ANNOUNCE_GRID_MS) * ANNOUNCE_GRID_MS
    let tick = this.ticks.get(at)
    if (tick === undefined) {
      const shouts = new Set<number>()
      tick = {
        shouts,
        timer: setTimeout(() => {
          this.ticks.delete(at)
          const any = new Set<number>()
          for (const id of shouts) {
            this.waiting.delete(id)
            if (this.retrying.delete(id)) any.add(id)
          }
          void this.announceTogether([...shouts], any)
        }, Math.max(at - Date.now(), 0)).unref()
      }
      this.ticks.set(at, tick)
    }
    tick.shouts.add(shoutId)
  }

  /**
   * The pending counts of `shoutIds` (of those in `any`, their counts, pending or not):
   * those due go on the stream together, as one change; one not due yet (another process
   * announced it meanwhile) waits for its turn. Should a claim fail, or the writing after
   * the claims, those shouts are tried again a second later, so no count stays stale until
   * the next change.
   */
  private async announceTogether (shoutIds: readonly number[], any: ReadonlySet<number>): Promise<void> {
    const { ctx } = this
    const repository = reactionsRepository(ctx.db)
    const claims = await Promise.allSettled(shoutIds.map(async id => await repository.claim(id, !any.has(id))))
    const due: Array<{ id: number, roomId: number }> = []
    for (const [i, settled] of claims.entries()) {
      const id = shoutIds[i]!
      if (settled.status === 'rejected') {
        ctx.log.warn({ err: settled.reason, shoutId: id }, 'could not claim the announcement of reactions; trying again in a second')
        this.announceLater(id, Date.now() + REACTIONS_EVENT_EVERY_MS, true)
        continue
      }
      const claim = settled.value
      if (claim?.due === true) due.push({ id, roomId: claim.roomId })
      else if (claim?.pending === true) this.announceLater(id, claim.announcedAt + REACTIONS_EVENT_EVERY_MS)
    }
    if (due.length === 0) return
    try {
      await this.record(due)
    } catch (error) {
      ctx.log.warn({ err: error, shouts: due.map(({ id }) => id) }, 'could not announce reactions; trying again in a second')
      for (const { id } of due) this.announceLater(id, Date.now() + REACTIONS_EVENT_EVERY_MS, true)
    }
  }

  /**
   * After a change: puts the shout's counts on the stream if they may go now, else makes
   * sure they go when they may. Answers the shout's counts for `answer`'s viewer, read with
   * the claim.
   */
  async announce (shoutId: number, answer: { set: readonly string[], viewerId: number }): Promise<Reaction[]> {
    const { ctx } = this
    const claim = await reactionsRepository(ctx.db).claim(shoutId, false, answer)
    if (claim === undefined) return []
    if (!claim.due) {
      if (claim.pending) this.announceLater(shoutId, claim.announcedAt + REACTIONS_EVENT_EVERY_MS)
      return claim.counts
    }
    await this.record([{ id: shoutId, roomId: claim.roomId }])
    return claim.counts
  }

  /** Writes the claimed shouts' counts as `shout-reactions` events, and announces them as one change, in one transaction. */
  private async record (claimed: ReadonlyArray<{ id: number, roomId: number }>): Promise<void> {
    const { ctx } = this
    const repository = reactionsRepository(ctx.db)
    const [settings, rooms] = await Promise.all([ShoutboxSettings.of(ctx).current(), Rooms.of(ctx).all()])
    await ctx.transaction(async trx => {
      const events = []
      for (const { id, roomId } of claimed) {
        // A room this process does not know of: nothing to say in it.
        const room = rooms.find(each => each.id === roomId)
        if (room !== undefined) events.push({ ...await repository.record(id, room.slug, settings.reactions, trx), kind: 'shout-reactions' as const })
      }
      if (events.length > 0) await announceChange(ctx, 'shout-reactions', events, trx)
    })
  }

  /** Forgets the announcements not yet made (the addon stops; the next change of those shouts announces them). */
  stop (): void {
    this.stopped = true
    for (const { timer } of this.ticks.values()) clearTimeout(timer)
    this.ticks.clear()
    this.waiting.clear()
    this.retrying.clear()
  }
}

/**
 * `shouts` with their reactions (`mine` for a signed-in `viewer`), `bot: true` on a bot's, `edited` on a changed one's,
 * `uploads` on one with pictures:
 * what every answer but the seed's list shows. Two queries, whatever their number.
 */
export async function withReactions<S extends { id: number }> (ctx: AddonContext, shouts: readonly S[], viewer: SessionUser | null): Promise<Array<S & { reactions: Reaction[] }>> {
  const { reactions: set } = await ShoutboxSettings.of(ctx).current()
  const ids = shouts.map(shout => shout.id)
  const counts = await reactionsRepository(ctx.db).of(ids, set, viewer?.id ?? null)
  const { bots, via, guests, edited, pictures } = await shoutsRepository(ctx.db).marks(ids)
  return shouts.map(shout => {
    const changed = edited.get(shout.id)
    const shown = pictures.get(shout.id)
    // `bot`, `via`, `guest`, `edited` and `uploads` come after the reactions, whether or not the shout came with them.
    const { bot: _bot, via: _via, guest: _guest, edited: _edited, uploads: _uploads, ...fields } = shout as S & { bot?: true, via?: string, guest?: true, edited?: number, uploads?: unknown }
    return {
      ...fields as S,
      reactions: counts.get(shout.id) ?? [],
      ...(bots.has(shout.id) ? { bot: true as const } : {}),
      ...(via.has(shout.id) ? { via: via.get(shout.id)! } : {}),
      ...(guests.has(shout.id) ? { guest: true as const } : {}),
      ...(changed === undefined ? {} : { edited: changed }),
      ...(shown === undefined ? {} : { uploads: shown })
    }
  })
}
