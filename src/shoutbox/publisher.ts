import type { Actor, AddonContext } from '../sdk/index.js'
import { announced, announcing, MAX_NOTICE_BYTES, readNotice } from './changes/notice.js'
import { ShoutCreated } from './events.js'
import { Mentions } from './mentions.js'
import { perContext } from './per-context.js'
import { isConversation, type Room } from './rooms.js'
import type { RoomShout, ShoutPicture } from './schemas.js'
import { shoutsRepository, type NewShout } from './shouts-repository.js'

export interface PublishOptions {
  /**
   * Writes the CREATED_SHOUT entry with the shout: staff publishing through the panel is
   * on the record; members talking in the widget are not (the feed is the staff's).
   */
  readonly logged: boolean
  /** The room it is said in. */
  readonly room: Pick<Room, 'id' | 'slug'>
  /** The shout it answers (checked: one of the same room), if any. */
  readonly replyTo?: number | null
  /** Its pictures (checked: the author's uploads), if any. */
  readonly uploads?: ShoutPicture[] | null
}

interface Waiting {
  readonly shout: NewShout
  /** Its author; null for a guest's shout or one that came in through an incoming hook (no account: it notifies nobody, it is never logged). */
  readonly user: Actor | null
  readonly logged: boolean
  readonly room: string
  readonly resolve: (shout: RoomShout) => void
  readonly reject: (error: unknown) => void
}

/** The most publishes written in one statement. */
const MAX_BATCH = 256

/**
 * Writes publishes the way PostgreSQL writes commits: together. While one statement is
 * being written, the publishes that arrive wait, and the next statement takes them all —
 * their shouts, stream events and CREATED_SHOUT entries (of the logged ones), and one
 * change notice, whatever their number. A publish that finds nothing being written goes
 * at once (with any read in the same turn of the event loop); under load the cost of a
 * statement is shared, which is what lets one process take thousands of publishes a second.
 *
 * It is one statement, not a transaction of several (`insertAnnounced`): a round trip to
 * the database costs both processes more CPU than the writing itself, and a busy board's
 * list shares that CPU.
 *
 * Each publish is answered only once its statement has committed. Should PostgreSQL refuse
 * the statement, nothing of it was written, and its publishes are written again, each
 * alone, so that one that cannot be stored fails by itself and the others land. Should the
 * outcome be unknown (the connection lost on the way), nothing is written twice: each of
 * them gets the error.
 */
export class Publisher {
  static readonly of = perContext(ctx => new Publisher(ctx))

  private waiting: Waiting[] = []
  private writing = false
  private readonly published

  private constructor (private readonly ctx: AddonContext) {
    this.published = ctx.metrics.counter('publishes_total', 'Shouts published (committed)')
  }

  /** Stores a checked message as `user`'s shout, dated now; resolves once it is committed. */
  publish (user: Actor & { readonly bot?: boolean }, message: string, { logged, room, replyTo = null, uploads = null }: PublishOptions): Promise<RoomShout> {
    return new Promise((resolve, reject) => {
      this.enqueue({ shout: { message, username: user.username, date: Date.now(), authorId: user.id, roomId: room.id, replyToId: replyTo, bot: user.bot === true, uploads }, user, logged, room: room.slug, resolve, reject })
    })
  }

  /**
   * Stores a guest's checked message under the name they gave, dated now, with what stands
   * for their address (its HMAC of the day); resolves once it is committed. No author, no
   * log entry, and no one is notified of the names it mentions.
   */
  publishAsGuest (name: string, addressKey: string, message: string, room: Pick<Room, 'id' | 'slug'>): Promise<RoomShout> {
    return new Promise((resolve, reject) => {
      this.enqueue({ shout: { message, username: name, date: Date.now(), authorId: null, roomId: room.id, replyToId: null, bot: false, guest: true, guestAddress: addressKey }, user: null, logged: false, room: room.slug, resolve, reject })
    })
  }

  /**
   * Stores a checked message that came in through the incoming hook named `via`, under
   * the name the sending tool gave (`username`), as a bot's shout of no account: it is not
   * logged and notifies nobody. Resolves once it is committed.
   */
  relay (via: string, username: string, message: string, room: Pick<Room, 'id' | 'slug'>): Promise<RoomShout> {
    return new Promise((resolve, reject) => {
      this.enqueue({ shout: { message, username, date: Date.now(), authorId: null, roomId: room.id, replyToId: null, bot: true, via }, user: null, logged: false, room: room.slug, resolve, reject })
    })
  }

  private enqueue (waiting: Waiting): void {
    this.waiting.push(waiting)
    if (this.writing) return
    this.writing = true
    // Requests already read from the network in this turn of the event loop join this
    // one. It matters for the embedded database, whose statements run without letting
    // the event loop turn: without this wait, each of its transactions would hold one publish.
    setImmediate(() => { void this.writeAll() })
  }

  private async writeAll (): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.write(this.waiting.splice(0, MAX_BATCH))
    } finally {
      this.writing = false // `write` answers every failure itself; this only guards against a stuck publisher
    }
  }

  /** Writes `batch` in one statement and answers each of its publishes. */
  private async write (batch: readonly Waiting[]): Promise<void> {
    const { ctx } = this
    let shouts: RoomShout[]
    try {
      const { notice, sent } = await shoutsRepository(ctx.db).insertAnnounced(batch.map(waiting => waiting.shout), {
        also: ctx.activityLog.insertion(batch.flatMap(({ shout, user, logged, room }) => logged && user !== null
          ? [{ type: 'CREATED_SHOUT', user, details: { message: shout.message, room } }]
          : [])),
        hooked: rows => ctx.webhooks.insertion('shout.created', rows),
        announce: announcing(ctx),
        maxNoticeBytes: MAX_NOTICE_BYTES
      })
      announced(ctx, sent ?? notice)
      shouts = createdShouts(notice, batch.length)
    } catch (error) {
      if (batch.length > 1 && refusedByDatabase(error)) await Promise.all(batch.map(waiting => this.write([waiting])))
      else for (const waiting of batch) waiting.reject(error)
      return
    }
    this.published.inc(batch.length)
    batch.forEach((waiting, index) => {
      const shout = shouts[index]!
      // A conversation of two is told to no listener and mentions no one: its members alone read it.
      if (!isConversation(shout.room)) {
        ctx.events.emit(ShoutCreated, shout)
        if (waiting.user !== null) Mentions.of(ctx).afterPublish(shout, waiting.user)
      }
      waiting.resolve(shout)
    })
  }
}

/** The shouts a publish statement's notice carries, in its publishes' order (it always carries them, whatever it sent). */
function createdShouts (notice: string, count: number): RoomShout[] {
  const shouts = (readNotice(notice)?.events ?? []).flatMap(event => 'message' in event.shout ? [event.shout] : [])
  if (shouts.length !== count) throw new Error(`the publish statement's notice holds ${shouts.length} shouts for ${count} publishes`)
  return shouts
}

/**
 * PostgreSQL's error classes for a statement it refused before anything of it was written
 * (data, constraints, the statement itself, a trigger's exception, a limit, a conflict
 * with another transaction). Any other failure — a lost connection, a server shutting
 * down, resources, anything not from PostgreSQL — leaves the outcome unknown.
 */
const REFUSED = /^(22|23|42|P0|54)...$|^40001$|^40P01$/

/** True when PostgreSQL (or PGlite) answered the statement with a refusal: nothing of it was written. */
function refusedByDatabase (error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown, severity?: unknown }
  return typeof severity === 'string' && typeof code === 'string' && REFUSED.test(code)
}
