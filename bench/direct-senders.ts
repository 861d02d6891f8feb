/**
 * The direct part's load (bench/direct.ts), in a process of its own: direct messages at
 * `job.rate` a second, evenly spaced (the n-th at start + n / rate, whatever the answers
 * before it took), `POST /api/shoutbox/direct/:username` with the writer's session cookie.
 * Message n goes in conversation n mod C (C = the pairs), written by its first member and
 * its second in turn: at a rate of C a second, each conversation gets one a second and
 * each member writes one every two seconds. Its text is "<job.marker> <seq> <from> <to>"
 * (seq = job.firstSeq + n; members by number), which bench/direct-members.ts times on
 * the other member's stream.
 *
 * Each request on a kept-alive connection of its own (at most MAX_IN_FLIGHT waiting for
 * an answer; one due beyond them is skipped and counted), written over `net` by hand as
 * bench/publisher.ts does, so that this process, on the load generator's core, costs as
 * little a request as it can. Prints "started", then on "stop" (or after
 * `job.maxSeconds`), once the requests in flight are answered (15 s at most), its
 * figures (SendersResult) as JSON.
 */
import net from 'node:net'
import { percentile } from './stats.js'

interface Job {
  readonly url: string
  readonly rate: number
  readonly maxSeconds: number
  readonly marker: string
  readonly firstSeq: number
  /** The members, by number: conversation c is members 2c and 2c + 1. */
  readonly members: ReadonlyArray<{ readonly username: string, readonly cookie: string }>
}

export interface SendersResult {
  readonly sent: number
  /** Answers by status (0: failed or not answered). */
  readonly statuses: Readonly<Record<string, number>>
  /** 2xx answers before the stop. */
  readonly okBeforeStop: number
  readonly skipped: number
  /** From the first message to the stop. */
  readonly seconds: number
  readonly achievedPerSecond: number
  /** How late the latest message went out after its due time, ms. */
  readonly maxLagMs: number
  readonly answerP50: number
  readonly answerP99: number
  /** [seq, sentAt, answeredAt] (Date.now()) of every message answered 2xx. */
  readonly answered: Array<[number, number, number]>
}

const MAX_IN_FLIGHT = 256
const job = JSON.parse(process.argv[2]!) as Job
const target = new URL(job.url)
const pairs = Math.floor(job.members.length / 2)
const interval = 1000 / job.rate

/** A kept-alive connection, one request at a time; reads the status and skips the body by its content-length. */
class Connection {
  private readonly socket: net.Socket
  private buffered = ''
  private done: ((status: number) => void) | undefined
  closed = false

  constructor () {
    this.socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true })
    this.socket.setEncoding('latin1')
    this.socket.on('data', (chunk: string) => { this.read(chunk) })
    const close = (): void => {
      this.closed = true
      this.finish(0)
    }
    this.socket.on('error', close)
    this.socket.on('close', close)
  }

  send (path: string, cookie: string, body: string, done: (status: number) => void): void {
    this.done = done
    this.socket.write(`POST ${path} HTTP/1.1\r\nhost: ${target.host}\r\ncookie: ${cookie}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  }

  private read (chunk: string): void {
    this.buffered += chunk
    const end = this.buffered.indexOf('\r\n\r\n')
    if (end < 0) return
    const status = Number(this.buffered.slice(9, 12))
    const declared = /\r\ncontent-length: *(\d+)/i.exec(this.buffered.slice(0, end))?.[1]
    if (declared === undefined) {
      this.finish(status)
      this.destroy()
      return
    }
    const length = Number(declared)
    if (this.buffered.length < end + 4 + length) return
    this.buffered = this.buffered.slice(end + 4 + length)
    this.finish(status)
  }

  private finish (status: number): void {
    const done = this.done
    this.done = undefined
    done?.(status)
  }

  destroy (): void {
    this.closed = true
    this.socket.destroy()
  }
}

const idle: Connection[] = []
const statuses: Record<string, number> = {}
const answerMs: number[] = []
const answered: Array<[number, number, number]> = []
let sent = 0
let inFlight = 0
let skipped = 0
let okBeforeStop = 0
let maxLagMs = 0
let stopped = false
let stoppedAt = 0

function send (n: number): void {
  if (inFlight >= MAX_IN_FLIGHT) {
    skipped++
    return
  }
  const conversation = n % pairs
  const turn = Math.floor(n / pairs) % 2
  const from = 2 * conversation + turn
  const to = 2 * conversation + 1 - turn
  const seq = job.firstSeq + n
  const body = JSON.stringify({ message: `${job.marker} ${seq} ${from} ${to}` })
  let connection = idle.pop()
  while (connection?.closed === true) connection = idle.pop()
  connection ??= new Connection()
  const sentAt = Date.now()
  const started = performance.now()
  inFlight++
  sent++
  const timeout = setTimeout(() => connection.destroy(), 10_000)
  connection.send(`/api/shoutbox/direct/${encodeURIComponent(job.members[to]!.username)}`, job.members[from]!.cookie, body, status => {
    clearTimeout(timeout)
    inFlight--
    answerMs.push(performance.now() - started)
    statuses[status] = (statuses[status] ?? 0) + 1
    if (status >= 200 && status < 300) {
      answered.push([seq, sentAt, Date.now()])
      if (!stopped) okBeforeStop++
    }
    if (!connection.closed) idle.push(connection)
  })
}

const start = performance.now()
let next = 0
let timer: NodeJS.Timeout | undefined

/** Sends every message that is due (more than one only if the timer fired late). */
function tick (): void {
  const now = performance.now()
  while (!stopped && start + next * interval <= now) {
    maxLagMs = Math.max(maxLagMs, now - (start + next * interval))
    send(next++)
  }
  if (now - start >= job.maxSeconds * 1000) stop()
  if (!stopped) timer = setTimeout(tick, Math.max(0, start + next * interval - performance.now()))
}

function stop (): void {
  if (stopped) return
  stopped = true
  stoppedAt = performance.now()
  if (timer !== undefined) clearTimeout(timer)
  const deadline = Date.now() + 15_000
  const finish = (): void => {
    if (inFlight > 0 && Date.now() < deadline) {
      setTimeout(finish, 20)
      return
    }
    if (inFlight > 0) statuses[0] = (statuses[0] ?? 0) + inFlight
    const seconds = (stoppedAt - start) / 1000
    const result: SendersResult = {
      sent,
      statuses,
      okBeforeStop,
      skipped,
      seconds,
      achievedPerSecond: okBeforeStop / seconds,
      maxLagMs,
      answerP50: percentile(answerMs, 50),
      answerP99: percentile(answerMs, 99),
      answered
    }
    process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0))
  }
  finish()
}

process.stdin.setEncoding('utf8')
process.stdin.on('data', (text: string) => { if (text.includes('stop')) stop() })
process.stdin.on('end', stop)
process.stdout.write('started\n')
tick()
