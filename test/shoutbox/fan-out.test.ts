/**
 * The stream's fan-out (src/shoutbox/fan-out.ts) with streams that record what is written
 * to them: every subscriber gets every event once, in order, however events and
 * subscribers arrive during a walk, and a burst costs fewer writes than events.
 */
import t from 'tap'
import { EventFrame, type EventStream } from '../../src/sdk/index.js'
import { FanOut, Subscriber } from '../../src/shoutbox/fan-out.js'

const GENERAL: ReadonlySet<string> = new Set(['general'])

class RecordingStream implements EventStream {
  readonly writes: string[] = []
  closed = false
  write (frame: EventFrame): void {
    if (!this.closed) this.writes.push(frame.text)
  }

  end (): void {
    this.closed = true
  }

  onClose (): void {}
  get text (): string {
    return this.writes.join('')
  }
}

const frame = (id: number): EventFrame => new EventFrame(`id: ${id}\nevent: shout-created\ndata: {"id":${id}}\n\n`)
const texts = (...ids: number[]): string => ids.map(id => frame(id).text).join('')
/** One turn of the event loop: what a slice of the walk takes. */
const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

function board (count: number, perTurn: number) {
  const subscribers = new Set<Subscriber>()
  const errors: unknown[] = []
  const fanOut = new FanOut(subscribers, error => errors.push(error), perTurn)
  const join = (): { subscriber: Subscriber, stream: RecordingStream } => {
    const stream = new RecordingStream()
    const subscriber = new Subscriber(stream, fanOut.latest, GENERAL)
    subscriber.catchUp([])
    subscribers.add(subscriber)
    return { subscriber, stream }
  }
  const members = Array.from({ length: count }, join)
  const settled = async (): Promise<void> => {
    for (let turns = 0; turns < 10_000; turns++) {
      await turn()
      if (![...subscribers].some(subscriber => subscriber.reached < fanOut.latest)) return
    }
    throw new Error('the walk never ended')
  }
  return { subscribers, fanOut, members, join, settled, errors }
}

t.test('an event is written after the turn that added it (its publish answered first), a slice a turn, once to each', async t => {
  const { fanOut, members, settled } = board(1200, 100)
  fanOut.add(1, frame(1), 'general')
  t.ok(members.every(({ stream }) => stream.writes.length === 0), 'nothing written in the turn that added it')
  await turn()
  t.equal(members.filter(({ stream }) => stream.writes.length === 1).length, 100, 'one slice in the next turn')
  await settled()
  t.ok(members.every(({ stream }) => stream.text === texts(1)), 'then every subscriber has it, once')
})

t.test('events arriving during a walk: each subscriber gets all of them, in order, and a burst costs fewer writes than events', async t => {
  const { fanOut, members, settled } = board(1000, 100)
  fanOut.add(1, frame(1), 'general')
  await turn()
  await turn()
  // Two slices have event 1; the eight others will get 1, 2 and 3 at once.
  fanOut.add(2, frame(2), 'general')
  fanOut.add(3, frame(3), 'general')
  await turn()
  fanOut.add(4, frame(4), 'general')
  await settled()
  t.ok(members.every(({ stream }) => stream.text === texts(1, 2, 3, 4)), 'everyone has 1, 2, 3, 4 in order, each once')
  const writes = members.reduce((sum, { stream }) => sum + stream.writes.length, 0)
  t.ok(writes < 4 * members.length, `${writes} writes for ${4 * members.length} deliveries`)
  t.ok(members.some(({ stream }) => stream.writes[0] === texts(1, 2, 3)), 'one write carried three events')
})

t.test('a subscriber who joins while events are on their way gets the events added after it joined, and none before', async t => {
  const { fanOut, join, members, settled } = board(300, 100)
  fanOut.add(1, frame(1), 'general')
  // Joins after event 1 was added (its history read covers it), before the walk starts.
  const early = join()
  fanOut.add(2, frame(2), 'general')
  await turn()
  // Joins in the middle of the walk.
  const late = join()
  fanOut.add(3, frame(3), 'general')
  await settled()
  t.equal(early.stream.text, texts(2, 3), 'joined before the walk: 2 and 3')
  t.equal(late.stream.text, texts(3), 'joined during it: 3 only')
  t.ok(members.every(({ stream }) => stream.text === texts(1, 2, 3)), 'the others: 1, 2 and 3')
})

t.test('a subscriber still catching up holds what arrives, then writes it after its history, without repeats', async t => {
  const subscribers = new Set<Subscriber>()
  const fanOut = new FanOut(subscribers, error => { throw error }, 10)
  const stream = new RecordingStream()
  const subscriber = new Subscriber(stream, fanOut.latest, GENERAL)
  subscribers.add(subscriber)
  fanOut.add(5, frame(5), 'general')
  fanOut.add(6, frame(6), 'general')
  await turn()
  t.equal(stream.writes.length, 0, 'held while its history is read')
  // Its history read saw event 5 already.
  subscriber.catchUp([[4, frame(4), 'general'], [5, frame(5), 'general']])
  t.equal(stream.text, texts(4, 5, 6))
})

t.test('stopped: nothing more is written', async t => {
  const { fanOut, members } = board(500, 100)
  fanOut.add(1, frame(1), 'general')
  await turn()
  fanOut.stop()
  fanOut.add(2, frame(2), 'general')
  for (let i = 0; i < 10; i++) await turn()
  t.equal(members.filter(({ stream }) => stream.writes.length > 0).length, 100, 'the slice written before the stop, no more')
})

t.test('events arriving faster than a walk: what is held stays bounded, and all of it is delivered', async t => {
  // 1,000 streams at 100 a turn: a walk takes ten turns; an event arrives every turn.
  const { fanOut, members, settled } = board(1000, 100)
  let mostHeld = 0
  for (let id = 1; id <= 200; id++) {
    fanOut.add(id, frame(id), 'general')
    await turn()
    mostHeld = Math.max(mostHeld, fanOut.held)
  }
  t.ok(mostHeld <= 25, `at most ${mostHeld} events held at once (two walks' worth is 20), not all 200`)
  await settled()
  // The walk under way goes on to its end (past streams that have everything already), then forgets.
  for (let turns = 0; turns < 20 && fanOut.held > 0; turns++) await turn()
  t.equal(fanOut.held, 0, 'none once the walk has ended')
  const all = texts(...Array.from({ length: 200 }, (_, i) => i + 1))
  t.ok(members.every(({ stream }) => stream.text === all), 'every stream has all 200, in order')
})

t.test('a stream whose write throws is reported and skipped; the others get the event, and the walk ends', async t => {
  const { fanOut, members, settled, errors, subscribers } = board(250, 100)
  const broken = new Subscriber({ write () { throw new Error('broken stream') }, end () {}, closed: false, onClose () {} }, fanOut.latest, GENERAL)
  broken.catchUp([])
  subscribers.add(broken)
  fanOut.add(1, frame(1), 'general')
  await settled()
  t.equal(errors.length, 1, 'reported once')
  t.ok(members.every(({ stream }) => stream.text === texts(1)), 'the others have it')
  fanOut.add(2, frame(2), 'general')
  await settled()
  t.equal(errors.length, 2, 'the next event: reported once more, not walked to again and again')
  t.equal(fanOut.held, 0)
})

t.test('settled: at once with no walk under way; else when every subscriber has every event, events added meanwhile included; or when its time is up', async t => {
  const { fanOut, members } = board(1000, 100)
  let early = false
  await fanOut.settled(60_000).then(() => { early = true })
  t.ok(early, 'no walk: at once')
  fanOut.add(1, frame(1), 'general')
  let done = false
  const settling = fanOut.settled(60_000).then(() => { done = true })
  await turn()
  await turn()
  fanOut.add(2, frame(2), 'general')
  t.notOk(done, 'not while the walk goes on')
  await settling
  t.ok(members.every(({ stream }) => stream.text === texts(1, 2)), 'by then every stream has both events')
  t.equal(fanOut.waiting, 0)
  // A walk that outlasts the wait (an event arrives every turn): the waiter leaves when its
  // time is up, and is not kept.
  let timeUp = false
  const waiting = fanOut.settled(5).then(() => { timeUp = true })
  let turns = 0
  for (let id = 3; !timeUp; id++, turns++) {
    fanOut.add(id, frame(id), 'general')
    await turn()
  }
  await waiting
  t.ok(turns > 0, `its time was up while the walk went on (${turns} turns)`)
  t.equal(fanOut.waiting, 0, 'nobody left waiting')
  const stopping = fanOut.settled(60_000)
  t.equal(fanOut.waiting, 1)
  fanOut.stop()
  await stopping
  t.equal(fanOut.waiting, 0, 'a stop tells those waiting')
})
