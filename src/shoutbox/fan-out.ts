import { EventFrame, type EventStream } from '../sdk/index.js'

/** Streams written to in one turn of the event loop (about 10 ms of socket writes on a small machine). */
const STREAMS_PER_TURN = 500

/**
 * Writes events to every subscriber, a slice of subscribers per turn of the event loop.
 * It starts in the turn after the events arrived, so the publish that made them has been
 * answered first, and it yields between slices, so ten thousand socket writes never hold
 * up the requests arriving meanwhile. It walks the subscribers until each has every
 * event; one it reaches gets all the events it lacks as one frame (joined once for all
 * who lack the same ones), so under a burst there are fewer writes than events.
 */
export class FanOut {
  /** The events not yet written to everyone, with their rooms; `log[i]` is event number `first + i`. */
  private log: Held[] = []
  private first = 0
  /** Joined frames for the current `latest`, by the first event they hold. */
  private readonly joined = new Map<number, EventFrame>()
  private walking = false
  private stopped = false
  /** Told when the walk under way ends (see `settled`); each leaves when its time is up. */
  private readonly settledWaiters = new Set<() => void>()

  /**
   * @param onError told of a stream whose write threw; the others are written to all the same
   * @param perTurn streams written to in one turn of the event loop
   */
  constructor (
    private readonly subscribers: ReadonlySet<Subscriber>,
    private readonly onError: (error: unknown) => void,
    private readonly perTurn = STREAMS_PER_TURN
  ) {}

  /** Events held until every subscriber has them: at most those added during the last walk or two. */
  get held (): number {
    return this.log.length
  }

  /** How many events have been added: a new subscriber has had all of them (it read the history). */
  get latest (): number {
    return this.first + this.log.length
  }

  add (id: number, frame: EventFrame, room: string): void {
    if (this.stopped) return
    this.log.push([id, frame, room])
    this.joined.clear()
    if (this.walking) return
    this.walking = true
    setImmediate(() => this.walk())
  }

  stop (): void {
    this.stopped = true
    this.log = []
    this.joined.clear()
    this.settle()
  }

  /**
   * Resolves when no walk is under way — at once, or when every subscriber has every event
   * in hand — or after `maxMs` at most, whichever comes first.
   */
  settled (maxMs: number): Promise<void> {
    if (!this.walking || this.stopped) return Promise.resolve()
    return new Promise(resolve => {
      const done = (): void => {
        clearTimeout(timer)
        this.settledWaiters.delete(done)
        resolve()
      }
      const timer = setTimeout(done, maxMs)
      this.settledWaiters.add(done)
    })
  }

  private settle (): void {
    this.walking = false
    for (const done of [...this.settledWaiters]) done()
  }

  /** Callers of `settled` still waiting. */
  get waiting (): number {
    return this.settledWaiters.size
  }

  private walk (): void {
    const to = [...this.subscribers]
    let next = 0
    const slice = (): void => {
      if (this.stopped) return
      const end = Math.min(next + this.perTurn, to.length)
      for (; next < end; next++) {
        try {
          this.bringUp(to[next]!)
        } catch (error) {
          this.onError(error)
        }
      }
      if (next < to.length) setImmediate(slice)
      // Events arrived during the walk: those reached before them, and those who
      // subscribed during it, are walked to again, from the next turn.
      else if (this.forgetDelivered()) setImmediate(() => this.walk())
      else this.settle()
    }
    slice()
  }

  /** Forgets the events every subscriber has; true while some subscriber lacks some. */
  private forgetDelivered (): boolean {
    let lowest = this.latest
    for (const subscriber of this.subscribers) lowest = Math.min(lowest, subscriber.reached)
    if (lowest > this.first) {
      this.log.splice(0, lowest - this.first)
      this.first = lowest
      this.joined.clear()
    }
    return lowest < this.latest
  }

  private bringUp (subscriber: Subscriber): void {
    const from = subscriber.reached
    if (from >= this.latest) return
    const events = this.log.slice(from - this.first)
    let frame = this.joined.get(from)
    if (frame === undefined) {
      frame = events.length === 1 ? events[0]![1] : new EventFrame(events.map(([, each]) => each.text).join(''))
      this.joined.set(from, frame)
    }
    // Reached first: a stream whose write throws is not walked to again and again.
    subscriber.reached = this.latest
    subscriber.send(events, frame)
  }
}

/** An event as the fan-out holds it: its id, its frame, its room's slug. */
export type Held = [id: number, frame: EventFrame, room: string]

/**
 * One subscriber, reading the events of `rooms` (slugs) alone: another room's event is
 * not written to it at all. Events that arrive while it catches up are held, then sent once.
 */
export class Subscriber {
  private held: Held[] | undefined = []

  /**
   * @param reached the fan-out's events this subscriber has (see FanOut.latest)
   * @param rooms the rooms it hears, which grow when its reader may read more (StreamHub.followRooms)
   */
  constructor (readonly stream: EventStream, public reached: number, public rooms: ReadonlySet<string>) {}

  /** `joined`: the `events`' frames as one, written as it is when every event is of this subscriber's rooms. */
  send (events: readonly Held[], joined: EventFrame): void {
    const mine = events.every(event => this.rooms.has(event[2])) ? events : events.filter(event => this.rooms.has(event[2]))
    if (this.held !== undefined) this.held.push(...mine)
    else if (mine === events) this.stream.write(joined)
    else if (mine.length > 0) this.stream.write(mine.length === 1 ? mine[0]![1] : new EventFrame(mine.map(([, frame]) => frame.text).join('')))
  }

  /** `missed`: the events of its rooms since the id it resumed from. */
  catchUp (missed: readonly Held[]): void {
    const sent = new Set<number>()
    for (const [id, frame] of missed) {
      sent.add(id)
      this.stream.write(frame)
    }
    const held = this.held ?? []
    this.held = undefined
    for (const [id, frame] of held) if (!sent.has(id)) this.stream.write(frame)
  }
}
