/**
 * A steady stream of publishes, in a process of its own: POSTs `job.url` with the
 * administrator's session cookie at `job.rate` a second, evenly spaced (the i-th at
 * start + i / rate, whatever the answers before it took), until "stop" on stdin or
 * `job.maxSeconds`. Prints "started" when the first one goes out, then, once stopped and
 * the requests in flight answered (at most 15 s more: a host that fell behind works
 * through them before the next measurement), its figures as JSON.
 */
import http from 'node:http'

interface Job {
  readonly url: string
  readonly cookie: string
  readonly rate: number
  readonly maxSeconds: number
  /** The message prefix; each publish appends its number, so messages stay distinct. */
  readonly message: string
}

export interface PublisherResult {
  /** Publishes sent while running. */
  readonly sent: number
  /** Answered with a 2xx before the stop, and in all. */
  readonly okBeforeStop: number
  readonly ok: number
  /** Answered with another status, or failed (connection error, no answer within 10 s, or none by the end). */
  readonly errors: number
  /** Not sent because 256 were already waiting for an answer. */
  readonly skipped: number
  /** From the first publish to the stop. */
  readonly seconds: number
  /** 2xx answers before the stop, per second of running. */
  readonly achievedPerSecond: number
  /** How late the latest publish went out after its due time. */
  readonly maxLagMs: number
  /** Publish answer times. */
  readonly p50: number
  readonly p99: number
}

const MAX_IN_FLIGHT = 256
const job = JSON.parse(process.argv[2]!) as Job
const target = new URL(job.url)
// A connection for each publish waiting for its answer, as from that many clients: none waits for another's.
const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT })
const interval = 1000 / job.rate

let sent = 0
let ok = 0
let okBeforeStop = 0
let errors = 0
let skipped = 0
let inFlight = 0
let maxLagMs = 0
let stopped = false
let stoppedAt = 0
const latencies: number[] = []

function publish (n: number): void {
  if (inFlight >= MAX_IN_FLIGHT) {
    skipped++
    return
  }
  const body = JSON.stringify({ message: `${job.message} ${String(n).padStart(7, '0')}` })
  const sentAt = performance.now()
  inFlight++
  sent++
  let settled = false
  const settle = (good: boolean): void => {
    if (settled) return
    settled = true
    inFlight--
    latencies.push(performance.now() - sentAt)
    if (good) {
      ok++
      if (!stopped) okBeforeStop++
    } else {
      errors++
    }
  }
  const request = http.request({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    agent,
    headers: { cookie: job.cookie, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
  }, response => {
    response.resume()
    response.on('end', () => settle(response.statusCode !== undefined && response.statusCode >= 200 && response.statusCode < 300))
    response.on('error', () => settle(false))
  })
  request.setTimeout(10_000, () => request.destroy(new Error('no answer within 10 s')))
  request.on('error', () => settle(false))
  request.end(body)
}

const start = performance.now()
let next = 0
let timer: NodeJS.Timeout | undefined

/** Sends every publish that is due (more than one only if the timer fired late). */
function tick (): void {
  const now = performance.now()
  while (!stopped && start + next * interval <= now) {
    maxLagMs = Math.max(maxLagMs, now - (start + next * interval))
    publish(next++)
  }
  if (now - start >= job.maxSeconds * 1000) stop()
  if (!stopped) timer = setTimeout(tick, Math.max(0, start + next * interval - performance.now()))
}

function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
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
    const seconds = (stoppedAt - start) / 1000
    const result: PublisherResult = {
      sent,
      okBeforeStop,
      ok,
      errors: errors + inFlight,
      skipped,
      seconds,
      achievedPerSecond: okBeforeStop / seconds,
      maxLagMs,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99)
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
