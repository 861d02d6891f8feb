import { EventFrame, eventFrame, type AddonContext, type EventStream, type Viewer } from '../sdk/index.js'
import { CHANGE_KINDS, type ShoutEvent } from './changes/kinds.js'
import { onChange, type ChangeNotice } from './changes/notice.js'
import { streamHistoryRepository } from './stream-history.js'
import { FanOut, Subscriber } from './fan-out.js'
import { perContext } from './per-context.js'
import { ReplayLimit } from './replay-limit.js'
import { canRead, Rooms, type Room } from './rooms.js'

/** Who opened a stream (the policy of its session or token) and which rooms they asked for (undefined: every room they may read). */
interface Reader {
  readonly viewer: Viewer
  readonly asked: ReadonlySet<string> | undefined
  /** The room its page shows (the widget's `showing`): the one it is present in; undefined: every room it hears. */
  readonly showing: string | undefined
  /** When the stream opened (ms): since when its reader is here. */
  readonly since: number
}

/** How a stream is opened besides its reader: the rooms asked for, the room shown, whether a reconnect may replay. */
export interface StreamOptions {
  readonly asked?: ReadonlySet<string> | undefined
  readonly showing?: string | undefined
  /** false: the client replayed too often, and a reconnect is answered `reset`. */
  readonly replay?: boolean
}

/** An open stream as presence counts it: who reads it, the rooms it is present in (see StreamHub.present), since when. */
export interface PresentReader {
  readonly viewer: Viewer
  readonly rooms: ReadonlySet<string>
  readonly since: number
}

const NOWHERE: ReadonlySet<string> = new Set()

const PRUNE_EVERY_MS = 3_600_000
/** Distinct sets of rooms kept for sharing; past it they are forgotten and made again as readers come. */
const MAX_SHARED_ROOM_SETS = 1000
/** Sent on every open stream when rooms change: no id (not in the history), nothing in it; the page asks for the rooms again. */
const ROOMS_CHANGED = new EventFrame('event: rooms-changed\ndata: {}\n\n')

/**
 * The live stream's subscribers in this process. Each change notice, from any process,
 * carries the stream events it wrote (or, when they are too many, their ids, and they
 * are read once); each is formatted once and handed to the fan-out, one notice at a
 * time, in the order the commits were announced.
 */
export class StreamHub {
  static readonly of = perContext(ctx => new StreamHub(ctx))

  /** How often each client replayed the history lately (a reconnect with `Last-Event-ID`). */
  readonly replays = new ReplayLimit()
  private readonly subscribers = new Set<Subscriber>()
  /** Who opened each subscriber's stream, to decide again what it may read. */
  private readonly openedBy = new Map<Subscriber, Reader>()
  /** Raised by every change of rooms or of rights: a stream that opened across one is closed (it cannot know what it missed). */
  private rightsChanges = 0
  /** The streams each signed-in member opened, for the events that are theirs alone. */
  private readonly members = new Map<number, Set<EventStream>>()
  /** The sets of rooms readers hear, one for each set there is (see roomsFor). */
  private readonly roomSets = new Map<string, ReadonlySet<string>>()
  private readonly fanOut: FanOut
  private deliveries: Promise<void> = Promise.resolve()
  /**
   * The newest event this process has heard of, from the notices (or the history, read
   * once when none had come): where a new stream starts. Every event after it reaches a
   * stream that starts now, as the fan-out adds it; one no notice brought here is read
   * on the next reconnect, as it would be if the history had been read.
   */
  private newestId: number | undefined
  /** Told when a stream here opens or closes (presence writes who is here sooner). */
  private readonly readersChanged = new Set<() => void>()
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
      for (const id of notice.eventIds) if (id > (this.newestId ?? 0)) this.newestId = id
      if (notice.member !== undefined) this.tellMember(notice.member, memberFrame(notice.kind))
      else if (notice.eventIds.length > 0 && this.subscribers.size > 0) this.deliver(notice)
    })
    // What a stream may read is decided when it opens, and again when the rooms change:
    // in turn with the deliveries, so no event written after the change reaches a stream
    // before it is decided. A reader who lost a room is closed (and reconnects with its
    // rights of now); one who gained one hears it from then on; every page is told.
    Rooms.of(this.ctx).onChange(() => {
      this.rightsChanges++
      this.deliveries = this.deliveries
        .then(() => this.followRooms())
        .catch(error => this.ctx.log.warn({ err: error }, 'could not follow a change of rooms'))
    })
    this.ctx.users.onAccessChange(userId => {
      this.rightsChanges++
      this.closeStreamsOf(userId)
    })
    const prune = (): void => {
      streamHistoryRepository(this.ctx.db).prune().catch(error => this.ctx.log.warn({ err: error }, 'pruning stream history failed'))
    }
    this.pruneTimer = setInterval(prune, PRUNE_EVERY_MS).unref()
    prune()
  }

  /**
   * Resolves once the events in hand have been written to every stream here, or after
   * `maxMs` at most: work that can wait a moment (a reaction) lets a delivery under way to
   * every reader finish first, rather than slow it down between its slices.
   */
  delivered (maxMs: number): Promise<void> {
    return this.fanOut.settled(maxMs)
  }

  /**
   * The open streams here, each with its reader, the rooms it is present in, and since
   * when. A page that says which room it shows (`showing`) is present in that room alone,
   * while its stream hears it; a stream that says nothing, in every room it hears.
   */
  * present (): Iterable<PresentReader> {
    for (const [subscriber, reader] of this.openedBy) {
      if (!subscriber.stream.closed) yield { viewer: reader.viewer, rooms: this.presentIn(subscriber, reader), since: reader.since }
    }
  }

  private presentIn (subscriber: Subscriber, reader: Reader): ReadonlySet<string> {
    if (reader.showing === undefined) return subscriber.rooms
    return subscriber.rooms.has(reader.showing) ? this.shared([reader.showing]) : NOWHERE
  }

  /** Runs `listener` whenever a stream here opens or closes. */
  onReadersChange (listener: () => void): void {
    this.readersChanged.add(listener)
  }

  /** Writes `frame` (an event with no id: not in the history) to each stream here present in `room` (see present). */
  writeToPresent (room: string, frame: EventFrame): void {
    const streams: EventStream[] = []
    for (const [subscriber, reader] of this.openedBy) {
      if (!subscriber.stream.closed && this.presentIn(subscriber, reader).has(room)) streams.push(subscriber.stream)
    }
    this.writeEach(streams, frame)
  }

  private tellReadersChanged (): void {
    for (const listener of this.readersChanged) {
      try {
        listener()
      } catch (error) {
        this.ctx.log.warn({ err: error }, 'a listener of the readers failed')
      }
    }
  }

  /** The host ends the streams themselves when it stops. */
  stop (): void {
    clearInterval(this.pruneTimer)
    this.subscribers.clear()
    this.openedBy.clear()
    this.members.clear()
    this.readersChanged.clear()
    this.fanOut.stop()
  }

  /**
   * Adds a subscriber, reading the rooms `user` may read now (of those it `asked` for,
   * when it named some). With `lastEventId` (a reconnect), the events of those rooms since
   * then are sent first; otherwise the stream starts now, with a `ready` event carrying
   * the current id. A reconnect too far behind to be caught up gets a `reset` event with
   * the current id instead: what it holds is out of date, and it must load the list
   * again. A stream a signed-in user opened also hears the events that are theirs alone.
   * `replay: false` (the client replayed too often) answers a reconnect with `reset`;
   * `showing` is the room its page shows (presence counts it there alone).
   */
  async subscribe (stream: EventStream, lastEventId: number | undefined, opener: Viewer, { asked, showing, replay = true }: StreamOptions = {}): Promise<void> {
    const member = opener.userId
    const rightsChanges = this.rightsChanges
    let rooms: ReadonlySet<string>
    let viewer = opener
    try {
      // The credential was read before this began, maybe before a change of rights this
      // process has heard since: its rights as they are now — a token's, its limits kept.
      viewer = await opener.renewed()
      rooms = this.roomsFor({ viewer, asked }, await Rooms.of(this.ctx).all())
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not start a stream')
      stream.end()
      return
    }
    // Gone meanwhile; or rooms or rights changed while they were being read: what was read
    // may be out of date, and the closing has passed it by. It reconnects, and is decided anew.
    if (stream.closed || rightsChanges !== this.rightsChanges) {
      stream.end()
      return
    }
    const subscriber = new Subscriber(stream, this.fanOut.latest, rooms)
    this.subscribers.add(subscriber)
    this.openedBy.set(subscriber, { viewer, asked, showing, since: Date.now() })
    this.tellReadersChanged()
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
      this.tellReadersChanged()
    })
    try {
      const events = streamHistoryRepository(this.ctx.db)
      const missed = lastEventId === undefined ? undefined : replay ? await events.replayAfter(lastEventId) : 'too-far'
      if (missed === undefined || missed === 'too-far') {
        stream.write(eventFrame(await this.startingId(), missed === undefined ? 'ready' : 'reset', '{}'))
        subscriber.catchUp([])
      } else {
        subscriber.catchUp(missed.filter(event => rooms.has(event.shout.room)).map(event => [event.id, frameOf(event), event.shout.room]))
      }
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not start a stream')
      stream.end()
    }
  }

  /** Where a stream that starts now starts: the newest event heard of (see newestId). */
  private async startingId (): Promise<number> {
    if (this.newestId !== undefined) return this.newestId
    const read = await streamHistoryRepository(this.ctx.db).latestId()
    this.newestId = Math.max(this.newestId ?? 0, read)
    return this.newestId
  }

  /** The rooms a reader reads, of `rooms`: those it may read (archived ones too), of those it asked for. */
  private roomsFor ({ viewer, asked }: Pick<Reader, 'viewer' | 'asked'>, rooms: readonly Room[]): ReadonlySet<string> {
    return this.shared(rooms.filter(room => canRead(room, viewer) && (asked === undefined || asked.has(room.slug))).map(room => room.slug))
  }

  /**
   * The one set of `slugs` readers share (never changed: a change of rooms gives a reader
   * a new one), not a set each. Forgotten when they grow past a bound.
   */
  private shared (slugs: readonly string[]): ReadonlySet<string> {
    const key = slugs.join('\n')
    let shared = this.roomSets.get(key)
    if (shared === undefined) {
      if (this.roomSets.size >= MAX_SHARED_ROOM_SETS) this.roomSets.clear()
      this.roomSets.set(key, shared = new Set(slugs))
    }
    return shared
  }

  /**
   * Rooms changed: each stream whose reader may no longer read one of its rooms ends; one
   * that may now read more hears them from here on (what it missed there is in the
   * archive, which it may read too). Every stream still open is sent `rooms-changed`,
   * so its page asks again which rooms there are.
   */
  private async followRooms (): Promise<void> {
    let rooms: Room[]
    try {
      rooms = await Rooms.of(this.ctx).all()
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not read the rooms; the streams are closed, to be decided anew')
      for (const subscriber of this.subscribers) subscriber.stream.end()
      return
    }
    for (const [subscriber, reader] of this.openedBy) {
      const now = this.roomsFor(reader, rooms)
      if ([...subscriber.rooms].some(slug => !now.has(slug))) subscriber.stream.end()
      else subscriber.rooms = now
    }
    this.writeEach([...this.subscribers].map(subscriber => subscriber.stream).filter(stream => !stream.closed), ROOMS_CHANGED)
  }

  /**
   * What a signed-in reader may read may have changed — `userId`'s (their sessions
   * ended), or anyone's (`null`: a role was edited) — and the host cannot say what: their
   * streams end, and reconnect with their rights of now. Visitors' streams stay.
   */
  private closeStreamsOf (userId: number | null): void {
    for (const [subscriber, { viewer }] of this.openedBy) {
      if (viewer.signedIn && (userId === null || viewer.userId === userId)) subscriber.stream.end()
    }
  }

  /** Writes `frame` to the streams `member` opened in this process. */
  private tellMember (member: number, frame: EventFrame): void {
    this.writeEach(this.members.get(member) ?? [], frame)
  }

  /** Writes `frame` to each of `streams`; one whose write throws is logged, and the others are written to all the same. */
  private writeEach (streams: Iterable<EventStream>, frame: EventFrame): void {
    for (const stream of streams) {
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
      .then(() => carried ?? streamHistoryRepository(this.ctx.db).find(eventIds))
      .then(events => { for (const event of events) this.fanOut.add(event.id, frameOf(event), event.shout.room) })
      .catch(error => this.ctx.log.warn({ err: error, eventIds }, 'could not deliver stream events'))
  }
}

/** An event for one member's own streams: no id (it is not in the history), nothing in it but its kind. */
function memberFrame (kind: string): EventFrame {
  return new EventFrame(`event: ${kind}\ndata: {}\n\n`)
}

function frameOf (event: ShoutEvent): EventFrame {
  // A shout's reaction counts: its id, its room, the counts.
  if ('reactions' in event.shout) {
    const { id, room, reactions } = event.shout
    return eventFrame(event.id, event.kind, JSON.stringify({ id, room, reactions }))
  }
  // A deletion names the shout and its room, and nothing of what it said.
  if (CHANGE_KINDS[event.kind].carries === 'id' || !('message' in event.shout)) return eventFrame(event.id, event.kind, JSON.stringify({ id: event.shout.id, room: event.shout.room }))
  // The fields in the list's order, then the room, what it answers, for a bot's `bot` (and a hook's `via`), a guest's `guest`, for a changed one `edited`, and its pictures (jsonb keeps its own order).
  const { id, message, username, date, room, replyTo, bot, via, guest, edited, uploads } = event.shout
  return eventFrame(event.id, event.kind, JSON.stringify({
    id, message, username, date, room, replyTo, ...(bot === true ? { bot } : {}), ...(via === undefined ? {} : { via }), ...(guest === true ? { guest } : {}), ...(edited === undefined ? {} : { edited }), ...(uploads === undefined ? {} : { uploads })
  }))
}
