/**
 * Stream subscribers, `job.count` of them in this process, numbered from `job.first`.
 * Subscriber n connects from the loopback address of its group of `job.perAddress`
 * (127.0.1.1, 127.0.1.2, …), as that many clients would, so a limit of streams per
 * client address does not refuse them; at most `job.connecting` connect at a time.
 *
 * Protocol, a line each way:
 * - prints {"connected":n,"failed":m} once every subscriber has had its `ready` event
 *   or failed (or 300 s have passed);
 * - on "count": prints {"received":n}, the events of the burst received so far;
 * - on "done {"sentAt":[…],"answeredAt":[…],"window":[from,to]}" (when each publish of
 *   the burst was sent and answered, Date.now(); `window`, optional: when the events of
 *   `job.countEvent` are counted):
 *   prints the figures (see SubscribersResult) and exits.
 *
 * The burst's publishes carry the message "<job.marker> <i>"; an event counts as
 * publish i's by that message, whatever order the events arrive in.
 *
 * With `job.widget`, each subscriber is a widget: for every event its stream brings it
 * sends the requests the real widget sends for that kind (bench/widget-requests.ts), to
 * `job.widget.base` (the host, or the bare server's stand-ins), and counts them — the
 * `ready` event's first load apart from the rest.
 */
import http from 'node:http'
import net from 'node:net'
import { WIDGET_REQUESTS, type WidgetEventKind } from './widget-requests.js'

interface Job {
  readonly url: string
  readonly first: number
  readonly count: number
  readonly perAddress: number
  readonly connecting: number
  readonly marker: string
  readonly publishes: number
  /** Readers that act as widgets: `base` is prefixed to the table's paths (the bare server maps them). */
  readonly widget?: { readonly base: string }
  /** Events of this name are timed too, by room (the presence part's `presence`): see SubscribersResult.counted. */
  readonly countEvent?: string
}

/** The `countEvent` events a reader heard in the window the `done` line names. */
export interface CountedEvents {
  /** How many each reader heard, all rooms together (one number a subscriber). */
  readonly perReader: number[]
  /** The most any reader heard of one room. */
  readonly mostOfOneRoom: number
  /** Rooms the events named, and how many of them each brought in all. */
  readonly byRoom: Record<string, number>
  /** The shortest time between two events of the same room at one reader, ms (null: no room brought two). */
  readonly closestMs: number | null
}

export interface SubscribersResult {
  /** Arrival minus answer, ms, one per event received. */
  readonly latencies: number[]
  /** Arrival minus the publish's sending, ms, one per event received. */
  readonly fromSent: number[]
  /** Subscribers that did not get every publish of the burst. */
  readonly missed: number
  /** Events received more than once by the same subscriber. */
  readonly duplicates: number
  /** Streams that ended or failed after connecting. */
  readonly closed: number
  /** As widgets: the first loads sent (one a `ready`), and every other request sent. */
  readonly firstLoads: number
  readonly requests: number
  /** Widget requests that failed or were not answered 200. */
  readonly requestFailures: number
  /** With `countEvent` and a window in the `done` line. */
  readonly counted?: CountedEvents
}

const job = JSON.parse(process.argv[2]!) as Job
const target = new URL(job.url)

/** The n-th client address: 127.0.1.1 … 127.0.1.254, 127.0.2.1, … (never 127.0.0.1). */
function clientAddress (n: number): string {
  const group = Math.floor(n / job.perAddress)
  return `127.0.${1 + Math.floor(group / 254)}.${1 + group % 254}`
}

/** arrivals[s][i]: when subscriber s got publish i (Date.now()), 0 before. */
const arrivals = Array.from({ length: job.count }, () => new Array<number>(job.publishes).fill(0))
let connected = 0
let failed = 0
let closed = 0
let received = 0
let duplicates = 0
let reported = false
let firstLoads = 0
let requests = 0
let requestFailures = 0
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
const EVENT_NAME = /^event: ([a-z-]+)$/gm

/** Sends what a widget sends for an event of `kind`; the first load (on `ready`) counted apart. */
function asWidget (kind: string): void {
  const base = job.widget!.base
  for (const path of WIDGET_REQUESTS[kind as WidgetEventKind] ?? []) {
    if (kind === 'ready') firstLoads++
    else requests++
    const url = new URL(base + path)
    http.get({ host: url.hostname, port: url.port, path: url.pathname + url.search, agent }, response => {
      if (response.statusCode !== 200) requestFailures++
      response.resume()
    }).on('error', () => { requestFailures++ })
  }
}
const marker = `"message":"${job.marker} `
/** With `countEvent`: per subscriber, [arrival, room] of each such event. */
const countedAt = job.countEvent === undefined ? undefined : Array.from({ length: job.count }, () => [] as Array<[number, string]>)
const COUNTED = job.countEvent === undefined ? undefined : new RegExp(`^event: ${job.countEvent}\ndata: \\{"room":"([^"]*)"`, 'gm')

/** The counted events heard in [from, to], by subscriber and room. */
function countedIn (from: number, to: number): CountedEvents {
  const perReader: number[] = []
  const byRoom: Record<string, number> = {}
  let mostOfOneRoom = 0
  let closestMs: number | null = null
  for (const heard of countedAt!) {
    const last = new Map<string, number>()
    const ofRoom = new Map<string, number>()
    let n = 0
    for (const [at, room] of heard) {
      if (at < from || at > to) continue
      n++
      byRoom[room] = (byRoom[room] ?? 0) + 1
      ofRoom.set(room, (ofRoom.get(room) ?? 0) + 1)
      const before = last.get(room)
      if (before !== undefined && (closestMs === null || at - before < closestMs)) closestMs = at - before
      last.set(room, at)
    }
    perReader.push(n)
    mostOfOneRoom = Math.max(mostOfOneRoom, ...ofRoom.values())
  }
  return { perReader, mostOfOneRoom, byRoom, closestMs }
}

function report (): void {
  if (reported || connected + failed < job.count) return
  reported = true
  process.stdout.write(JSON.stringify({ connected, failed }) + '\n')
}

/**
 * One subscriber on a bare socket: an HTTP/1.1 GET, then the body read as it comes,
 * only complete events (up to the last blank line) searched for the burst's marker.
 * Kept this lean so that timing 2,500 arrivals in one process adds as little as it can.
 */
function subscribe (s: number): Promise<void> {
  return new Promise(resolve => {
    let head = true
    let ready = false
    let text = ''
    const times = arrivals[s]!
    let failedOnce = false
    const fail = (why: string): void => {
      if (failedOnce) return
      failedOnce = true
      // The first few only: a limit that refuses them all would otherwise print thousands.
      if (failed < 5) process.stderr.write(`subscriber ${job.first + s}: ${why}\n`)
      failed++
      report()
      resolve()
    }
    const socket = net.connect({ host: target.hostname, port: Number(target.port), localAddress: clientAddress(job.first + s) }, () => {
      socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\naccept: text/event-stream\r\n\r\n`)
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
      if (job.widget !== undefined) for (const [, kind] of events.matchAll(EVENT_NAME)) asWidget(kind!)
      if (COUNTED !== undefined) for (const [, room] of events.matchAll(COUNTED)) countedAt![s]!.push([now, room!])
      if (!ready && events.includes('event: ready')) {
        ready = true
        connected++
        report()
        resolve()
      }
      let at = events.indexOf(marker)
      while (at !== -1) {
        const i = parseInt(events.slice(at + marker.length, at + marker.length + 8), 10)
        if (i >= 0 && i < job.publishes) {
          if (times[i] !== 0) duplicates++
          else {
            times[i] = now
            received++
          }
        }
        at = events.indexOf(marker, at + marker.length)
      }
    })
    socket.on('error', error => { if (!ready) fail(error.message) })
    socket.on('close', () => {
      if (ready) closed++
      else if (!head) fail('closed before its ready event')
    })
  })
}

// A few at a time, so the host's accept queue never overflows.
let nextSubscriber = 0
const connectors = Array.from({ length: Math.min(job.connecting, job.count) }, async () => {
  while (nextSubscriber < job.count) await subscribe(nextSubscriber++)
})
void Promise.all(connectors)
setTimeout(() => {
  if (reported) return
  failed = job.count - connected
  report()
}, 300_000).unref()

process.stdin.setEncoding('utf8')
let input = ''
process.stdin.on('data', (text: string) => {
  input += text
  let end
  while ((end = input.indexOf('\n')) !== -1) {
    const line = input.slice(0, end)
    input = input.slice(end + 1)
    if (line === 'count') process.stdout.write(JSON.stringify({ received }) + '\n')
    if (line.startsWith('done ')) {
      const { sentAt, answeredAt, window } = JSON.parse(line.slice(5)) as { sentAt: number[], answeredAt: number[], window?: [number, number] }
      const latencies: number[] = []
      const fromSent: number[] = []
      let missed = 0
      for (const times of arrivals) {
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
      const result: SubscribersResult = {
        latencies, fromSent, missed, duplicates, closed, firstLoads, requests, requestFailures,
        ...(countedAt !== undefined && window !== undefined ? { counted: countedIn(window[0], window[1]) } : {})
      }
      process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0))
    }
  }
})
