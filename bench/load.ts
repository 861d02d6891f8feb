/**
 * The load generator, in a process of its own so it does not share an event loop with
 * what it measures. Reads its job as JSON from argv, prints autocannon's figures as JSON,
 * with `stolen`: the share of the machine's CPU time (%) its hypervisor gave to other
 * guests during the run (steal, from /proc/stat; null where that cannot be read).
 * With `bucketMs`, also the 2xx answers counted by when they came, in buckets of that many
 * milliseconds of the wall clock (`buckets`: the first bucket's start, epoch ms, and the
 * counts from there, empty buckets included), for a part that compares stretches of one
 * run.
 */
import fs from 'node:fs'
import autocannon from 'autocannon'

interface Job {
  readonly url: string
  readonly connections: number
  readonly durationSeconds: number
  readonly method?: 'GET' | 'POST'
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly bucketMs?: number
}

/** The machine's CPU time so far, in ticks: all of it and what the hypervisor stole; undefined where /proc/stat cannot tell. */
function machineTicks (): { all: number, stolen: number } | undefined {
  try {
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
    return fields.length === 8 && fields.every(Number.isFinite) ? { all: fields.reduce((a, b) => a + b, 0), stolen: fields[7]! } : undefined
  } catch {
    return undefined
  }
}

/** The counts from the first bucket to the last, empty ones as 0, and where the first starts (epoch ms). */
function dense (counts: Map<number, number>, size: number): { start: number, counts: number[] } {
  const indexes = [...counts.keys()]
  if (indexes.length === 0) return { start: 0, counts: [] }
  const first = Math.min(...indexes)
  const last = Math.max(...indexes)
  return { start: first * size, counts: Array.from({ length: last - first + 1 }, (_, i) => counts.get(first + i) ?? 0) }
}

const job = JSON.parse(process.argv[2]!) as Job
const before = machineTicks()
let finished!: (result: autocannon.Result) => void
let failed!: (error: unknown) => void
const done = new Promise<autocannon.Result>((resolve, reject) => { finished = resolve; failed = reject })
// The callback form: it returns the instance, whose answers the buckets count.
const run = autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.durationSeconds,
  method: job.method ?? 'GET',
  headers: job.headers ?? {},
  ...(job.body === undefined ? {} : { body: job.body }),
  pipelining: 1
}, (error: unknown, result: autocannon.Result) => { if (error === null || error === undefined) finished(result); else failed(error) })
/** Answers by bucket of the wall clock: bucket index (epoch ms / bucketMs) to count. */
const counted = new Map<number, number>()
const { bucketMs } = job
if (bucketMs !== undefined) {
  run.on('response', (_client: unknown, status: number) => {
    if (status < 200 || status >= 300) return
    const bucket = Math.floor(Date.now() / bucketMs)
    counted.set(bucket, (counted.get(bucket) ?? 0) + 1)
  })
}
const result = await done
const after = machineTicks()
const ticks = before !== undefined && after !== undefined ? after.all - before.all : 0
process.stdout.write(JSON.stringify({
  stolen: ticks > 0 ? 100 * (after!.stolen - before!.stolen) / ticks : null,
  requestsPerSecond: result.requests.average,
  total: result.requests.total,
  // Requests sent, answered or not: those still waiting when the run ended are in this only.
  sent: result.requests.sent,
  p50: result.latency.p50,
  p99: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  status2xx: result['2xx'],
  ...(bucketMs === undefined ? {} : { buckets: dense(counted, bucketMs) })
}) + '\n')
