import { EventFrame, eventFrame, type AddonContext, type EventStream, type SessionUser } from '../sdk/index.js'
import { CHANGE_KINDS, type ShoutEvent } from './changes/kinds.js'
import { onChange, type ChangeNotice } from './changes/notice.js'
import { streamHistory } from './stream-history.js'
import { FanOut, Subscriber } from './fan-out.js'
import { perContext } from './per-context.js'
import { Rooms } from './rooms.js'

/** Who opened a stream and which rooms they asked for (undefined: every room they may read). */
interface Reader {
  readonly user: SessionUser | null
  readonly asked: ReadonlySet<string> | undefined
}

const PRUNE_EVERY_MS = 3_600_000

/**
 * The live stream's subscribers in this process. Each change notice, from any process,
 * carries the stream events it wrote (or, when they are too many, their ids, and they
 * are read once); each is formatted once and handed to the fan-out, one notice at a
 * time, in the order the commits were announced.
 */
export class StreamHub {
  static readonly of = perContext(ctx => new StreamHub(ctx))

  private readonly subscribers = new Set<Subscriber>()
  /** Who opened each subscriber's stream, to decide again what it may read. */
  private readonly openedBy = new Map<Subscriber, Reader>()
  /** The streams each signed-in member opened, for the events that are theirs alone. */
  private readonly members = new Map<number, Set<EventStream>>()
  private readonly fanOut: FanOut
  private deliveries: Promise<void> = Promise.resolve()
  private pruneTimer: NodeJS.Timeout | undefined

  private constructor (private readonly ctx: AddonContext) {
    this.fanOut = new FanOut(this.subscribers, error => ctx.log.warn({ err: error }, 'could not write to a stream'))
  }

  /** Open streams in this process: the board's live readers here. */
  get readers (): number {
    return this.subscribers.size
  }

  start (): void {
    onChange(this.ctx, notice => {
      if (notice === undefined) return
      if (notice.member !== undefined) this.tellMember(notice.member, memberFrame(notice.kind))
      else if (notice.eventIds.length > 0 && this.subscribers.size > 0) this.deliver(notice)
    })
    // What a stream may read is decided when it opens; when that may have changed, the
    // streams it changed for are closed, and reconnect with their new rights.
    Rooms.of(this.ctx).onChange(() => { void this.closeWhereRoomsChanged() })
    this.ctx.users.onAccessChange(userId => this.closeStreamsOf(userId))
    const prune = (): void => {
      streamHistory(this.ctx.db).prune().catch(error => this.ctx.log.warn({ err: error }, 'pruning stream history failed'))
    }
    this.pruneTimer = setInterval(prune, PRUNE_EVERY_MS).unref()
    prune()
  }

  /** The host ends the streams themselves when it stops. */
  stop (): void {
    clearInterval(this.pruneTimer)
    this.subscribers.clear()
    this.openedBy.clear()
    this.members.clear()
    this.fanOut.stop()
  }

  /**
   * Adds a subscriber, reading the rooms `user` may read now (of those it `asked` for,
   * when it named some). With `lastEventId` (a reconnect), the events of those rooms since
   * then are sent first; otherwise the stream starts now, with a `ready` event carrying
   * the current id. A reconnect too far behind to be caught up gets a `reset` event with
   * the current id instead: what it holds is out of date, and it must load the list
   * again. A stream a signed-in user opened also hears the events that are theirs alone.
   */
  async subscribe (stream: EventStream, lastEventId: number | undefined, user: SessionUser | null, asked?: ReadonlySet<string>): Promise<void> {
    const member = user?.id
    let rooms: ReadonlySet<string>
    try {
      rooms = await this.roomsFor({ user, asked })
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not start a stream')
      stream.end()
      return
    }
    const subscriber = new Subscriber(stream, this.fanOut.latest, rooms)
    this.subscribers.add(subscriber)
    this.openedBy.set(subscriber, { user, asked })
    if (member !== undefined) {
      const streams = this.members.get(member) ?? new Set()
      streams.add(stream)
      this.members.set(member, streams)
    }
    stream.onClose(() => {
      this.subscribers.delete(subscriber)
      this.openedBy.delete(subscriber)
      const streams = member === undefined ? undefined : this.members.get(member)
      streams?.delete(stream)
      if (streams?.size === 0) this.members.delete(member!)
    })
    try {
      const events = streamHistory(this.ctx.db)
      const missed = lastEventId === undefined ? undefined : await events.replayAfter(lastEventId)
      if (missed === undefined || missed === 'too-far') {
        stream.write(eventFrame(await events.latestId(), missed === undefined ? 'ready' : 'reset', '{}'))
        subscriber.catchUp([])
      } else {
        subscriber.catchUp(missed.filter(event => rooms.has(event.shout.room)).map(event => [event.id, frameOf(event), event.shout.room]))
      }
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not start a stream')
      stream.end()
    }
  }

  /** The rooms a reader reads: those it may read, of those it asked for. */
  private async roomsFor ({ user, asked }: Reader): Promise<Set<string>> {
    const readable = await Rooms.of(this.ctx).readableSlugs(user)
    return asked === undefined ? readable : new Set([...asked].filter(slug => readable.has(slug)))
  }

  /** Rooms changed: ends each stream whose rooms are no longer the ones its reader would get now. */
  private async closeWhereRoomsChanged (): Promise<void> {
    for (const [subscriber, reader] of this.openedBy) {
      try {
        const now = await this.roomsFor(reader)
        const before = subscriber.rooms
        if (now.size !== before.size || [...now].some(slug => !before.has(slug))) subscriber.stream.end()
      } catch (error) {
        this.ctx.log.warn({ err: error }, 'could not check a stream\'s rooms')
        subscriber.stream.end()
      }
    }
  }

  /** What `userId` (null: any signed-in user) may read may have changed: their streams end, and reconnect with their rights of now. */
  private closeStreamsOf (userId: number | null): void {
    for (const [subscriber, { user }] of this.openedBy) {
      if (user !== null && (userId === null || user.id === userId)) subscriber.stream.end()
    }
  }

  /** Writes `frame` to the streams `member` opened in this process. */
  private tellMember (member: number, frame: EventFrame): void {
    for (const stream of this.members.get(member) ?? []) {
      try {
        stream.write(frame)
      } catch (error) {
        this.ctx.log.warn({ err: error }, 'could not write to a stream')
      }
    }
  }

  /** The notice's events, as it carries them or (too many for a notice) as the history holds them. */
  private deliver ({ eventIds, events: carried }: ChangeNotice): void {
    this.deliveries = this.deliveries
      .then(() => carried ?? streamHistory(this.ctx.db).find(eventIds))
      .then(events => { for (const event of events) this.fanOut.add(event.id, frameOf(event), event.shout.room) })
      .catch(error => this.ctx.log.warn({ err: error, eventIds }, 'could not deliver stream events'))
  }
}

/** An event for one member's own streams: no id (it is not in the history), nothing in it but its kind. */
function memberFrame (kind: string): EventFrame {
  return new EventFrame(`event: ${kind}\ndata: {}\n\n`)
}

function frameOf (event: ShoutEvent): EventFrame {
  // A deletion names the shout and its room, and nothing of what it said.
  if (CHANGE_KINDS[event.kind].carries === 'id' || !('message' in event.shout)) return eventFrame(event.id, event.kind, JSON.stringify({ id: event.shout.id, room: event.shout.room }))
  // The fields in the list's order, then the room (jsonb keeps its own order).
  const { id, message, username, date, room } = event.shout
  return eventFrame(event.id, event.kind, JSON.stringify({ id, message, username, date, room }))
}
