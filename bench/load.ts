/**
 * The load generator, in a process of its own so it does not share an event loop with
 * what it measures. Reads its job as JSON from argv, prints autocannon's figures as JSON.
 */
import autocannon from 'autocannon'

interface Job {
  readonly url: string
  readonly connections: number
  readonly durationSeconds: number
  readonly method?: 'GET' | 'POST'
  readonly headers?: Record<string, string>
  readonly body?: string
}

const job = JSON.parse(process.argv[2]!) as Job
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.durationSeconds,
  method: job.method ?? 'GET',
  headers: job.headers ?? {},
  ...(job.body === undefined ? {} : { body: job.body }),
  pipelining: 1
})
process.stdout.write(JSON.stringify({
  requestsPerSecond: result.requests.average,
  total: result.requests.total,
  // Requests sent, answered or not: those still waiting when the run ended are in this only.
  sent: result.requests.sent,
  p50: result.latency.p50,
  p99: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  status2xx: result['2xx']
}) + '\n')
