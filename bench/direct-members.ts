/**
 * The direct part's stream readers (bench/direct.ts): `job.count` members of the board,
 * numbered from `job.first`, each with their own session cookie and their stream open
 * (`/api/shoutbox/stream`, every room they may read: the board's room and their
 * conversation). Made as bench/subscribers.ts is — bare sockets, 20 streams a loopback
 * source address, a few connecting at a time — and timing two kinds of events:
 *
 * - the room's shouts, in bursts: burst b's publish i carries "<job.marker>-<b> <i>";
 *   each reader's arrival of each is kept, as subscribers.ts keeps them;
 * - direct messages, "<job.directMarker> <seq> <from> <to>" (members by number): the
 *   arrival on member `to`'s stream is kept by seq; one heard by a member neither `from`
 *   nor `to` is counted as a stray (a private message on a stranger's stream).
 *
 * Protocol, a line each way:
 * - prints {"connected":n,"failed":m} once every reader has had its `ready` event or failed;
 * - "count <b>": prints {"received":n}, the events of burst b received so far;
 * - "burst <b> {"sentAt":[…],"answeredAt":[…]}": prints burst b's BurstResult;
 * - "direct": prints the DirectArrivals since the last "direct", and forgets them;
 * - "exit": exits.
 */
import net from 'node:net'

interface Job {
  readonly url: string
  readonly first: number
  readonly count: number
  /** Each reader's Cookie header, in order. */
  readonly cookies: readonly string[]
  readonly perAddress: number
  readonly connecting: number
  readonly marker: string
  readonly directMarker: string
  readonly publishes: number
}

export interface BurstResult {
  /** Arrival minus answer, and minus sending, ms, one per event received. */
  readonly latencies: number[]
  readonly fromSent: number[]
  /** Readers that did not get every publish of the burst. */
  readonly missed: number
  readonly duplicates: number
  /** Streams that ended after connecting, so far. */
  readonly closed: number
}

export interface DirectArrivals {
  /** [seq, Date.now() of its arrival on the other member's stream]. */
  readonly arrivals: Array<[number, number]>
  /** Direct messages heard on the stream of a member who is neither of the two. */
  readonly strays: number
}

const job = JSON.parse(process.argv[2]!) as Job
const target = new URL(job.url)

/** The n-th client address: 127.0.1.1 … 127.0.1.254, 127.0.2.1, … (never 127.0.0.1). */
function clientAddress (n: number): string {
  const group = Math.floor(n / job.perAddress)
  return `127.0.${1 + Math.floor(group / 254)}.${1 + group % 254}`
}

/** bursts.get(b)[s][i]: when reader s got publish i of burst b (Date.now()), 0 before. */
const bursts = new Map<number, number[][]>()
const received = new Map<number, number>()
const duplicatesOf = new Map<number, number>()
function burst (b: number): number[][] {
  let times = bursts.get(b)
  if (times === undefined) {
    times = Array.from({ length: job.count }, () => new Array<number>(job.publishes).fill(0))
    bursts.set(b, times)
  }
  return times
}
let direct: Array<[number, number]> = []
let strays = 0
let connected = 0
let failed = 0
let closed = 0
let reported = false
const marker = `"message":"${job.marker}-`
const directMarker = `"message":"${job.directMarker} `

function report (): void {
  if (reported || connected + failed < job.count) return
  reported = true
  process.stdout.write(JSON.stringify({ connected, failed }) + '\n')
}

/** Reader s's complete events: the room's bursts and the direct messages in them, timed at `now`. */
function read (s: number, events: string, now: number): void {
  let at = events.indexOf(marker)
  while (at !== -1) {
    const rest = events.slice(at + marker.length, at + marker.length + 16)
    const space = rest.indexOf(' ')
    const b = parseInt(rest.slice(0, space), 10)
    const i = parseInt(rest.slice(space + 1), 10)
    if (b >= 0 && i >= 0 && i < job.publishes) {
      const times = burst(b)[s]!
      if (times[i] !== 0) duplicatesOf.set(b, (duplicatesOf.get(b) ?? 0) + 1)
      else {
        times[i] = now
        received.set(b, (received.get(b) ?? 0) + 1)
      }
    }
    at = events.indexOf(marker, at + marker.length)
  }
  at = events.indexOf(directMarker)
  while (at !== -1) {
    const [seq, from, to] = events.slice(at + directMarker.length, at + directMarker.length + 40).split(' ', 3).map(part => parseInt(part, 10))
    const me = job.first + s
    if (to === me) direct.push([seq!, now])
    else if (from !== me) strays++
    at = events.indexOf(directMarker, at + directMarker.length)
  }
}

/** One reader on a bare socket, its cookie sent: an HTTP/1.1 GET, then complete events read as they come. */
function subscribe (s: number): Promise<void> {
  return new Promise(resolve => {
    let head = true
    let ready = false
    let text = ''
    let failedOnce = false
    const fail = (why: string): void => {
      if (failedOnce) return
      failedOnce = true
      if (failed < 5) process.stderr.write(`member ${job.first + s}: ${why}\n`)
      failed++
      report()
      resolve()
    }
    const socket = net.connect({ host: target.hostname, port: Number(target.port), localAddress: clientAddress(job.first + s) }, () => {
      socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\naccept: text/event-stream\r\ncookie: ${job.cookies[s]}\r\n\r\n`)
    })
    socket.setNoDelay(true)
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      const now = Date.now()
      text += chunk
      if (head) {
        const end = text.indexOf('\r\n\r\n')
        if (end === -1) return
        if (!text.startsWith('HTTP/1.1 200')) {
          socket.destroy()
          fail(text.slice(0, text.indexOf('\r\n')))
          return
        }
        head = false
        text = text.slice(end + 4)
      }
      const complete = text.lastIndexOf('\n\n')
      if (complete === -1) return
      const events = text.slice(0, complete)
      text = text.slice(complete + 2)
      if (!ready && events.includes('event: ready')) {
        ready = true
        connected++
        report()
        resolve()
      }
      read(s, events, now)
    })
    socket.on('error', error => { if (!ready) fail(error.message) })
    socket.on('close', () => {
      if (ready) closed++
      else if (!head) fail('closed before its ready event')
    })
  })
}

let nextReader = 0
const connectors = Array.from({ length: Math.min(job.connecting, job.count) }, async () => {
  while (nextReader < job.count) await subscribe(nextReader++)
})
void Promise.all(connectors)
setTimeout(() => {
  if (reported) return
  failed = job.count - connected
  report()
}, 300_000).unref()

const answer = (value: unknown): void => { process.stdout.write(JSON.stringify(value) + '\n') }

process.stdin.setEncoding('utf8')
let input = ''
process.stdin.on('data', (chunk: string) => {
  input += chunk
  let end
  while ((end = input.indexOf('\n')) !== -1) {
    const line = input.slice(0, end)
    input = input.slice(end + 1)
    const [command, b] = line.split(' ', 2)
    if (command === 'count') answer({ received: received.get(Number(b)) ?? 0 })
    if (command === 'burst') {
      const { sentAt, answeredAt } = JSON.parse(line.slice(`burst ${b} `.length)) as { sentAt: number[], answeredAt: number[] }
      const latencies: number[] = []
      const fromSent: number[] = []
      let missed = 0
      for (const times of burst(Number(b))) {
        let all = true
        times.forEach((at, i) => {
          if (at === 0) all = false
          else {
            latencies.push(at - answeredAt[i]!)
            fromSent.push(at - sentAt[i]!)
          }
        })
        if (!all) missed++
      }
      const result: BurstResult = { latencies, fromSent, missed, duplicates: duplicatesOf.get(Number(b)) ?? 0, closed }
      answer(result)
    }
    if (command === 'direct') {
      const result: DirectArrivals = { arrivals: direct, strays }
      direct = []
      strays = 0
      answer(result)
    }
    if (command === 'exit') process.exit(0)
  }
})
