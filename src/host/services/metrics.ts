import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import type { MetricCounter } from '../../sdk/index.js'

const METRIC_NAME = /^[a-z][a-z0-9_]*$/

/**
 * The metrics listener could not open METRICS_PORT. It fails inside the host's `listen()`
 * (an onReady hook), so without this the error could not be told from the host's own port's.
 */
export class MetricsPortError extends Error {
  /** Node's code (EADDRINUSE, EACCES, …). */
  readonly code: string | undefined

  constructor (readonly port: number, cause: NodeJS.ErrnoException) {
    super(`cannot listen on metrics port ${port}: ${cause.message}`, { cause })
    this.code = cause.code
  }
}

/**
 * The process's metrics in Prometheus's text format: the host's own, Node's (memory,
 * event-loop delay, …), and those addons count through `ctx.metrics`. One registry per
 * app, so tests that build many apps do not share counters.
 */
export class Metrics {
  readonly registry = new Registry()
  readonly httpRequests = new Counter({
    name: 'shoutbox_http_requests_total',
    help: 'Requests answered through Fastify, by route, method and status (kept answers sent before Fastify are counted in shoutbox_answer_cache_served_total)',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry]
  })

  private readonly addonCounters = new Map<string, Counter>()
  private server: http.Server | undefined
  /** Where the metrics are served, once `listen` has run. */
  url: string | undefined

  constructor () {
    collectDefaultMetrics({ register: this.registry, prefix: 'shoutbox_' })
  }

  /** A gauge whose values are read when the metrics are scraped (nothing to keep current). */
  gauge (name: string, help: string, labelNames: readonly string[], read: () => Array<[Record<string, string>, number]>): void {
    new Gauge({ name, help, labelNames: [...labelNames], registers: [this.registry], collect: collectFrom<Gauge>(read, (gauge, labels, value) => gauge.set(labels, value)) })
  }

  /** A counter whose values are read when the metrics are scraped (counted elsewhere, as plain numbers). */
  counterFrom (name: string, help: string, labelNames: readonly string[], read: () => Array<[Record<string, string>, number]>): void {
    new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry], collect: collectFrom<Counter>(read, (counter, labels, value) => counter.inc(labels, value)) })
  }

  /** An addon's counter, named `shoutbox_addon_<addon>_<name>`. */
  counter (owner: string, name: string, help: string): MetricCounter {
    if (!METRIC_NAME.test(name)) throw new Error(`${owner}: metric name "${name}" must match ${METRIC_NAME}`)
    const full = `shoutbox_addon_${owner.replaceAll('-', '_')}_${name}`
    let counter = this.addonCounters.get(full)
    if (counter === undefined) {
      counter = new Counter({ name: full, help, registers: [this.registry] })
      this.addonCounters.set(full, counter)
    }
    const found = counter
    return { inc: (by = 1) => found.inc(by) }
  }

  /** Serves `GET /metrics` on 127.0.0.1:`port` (0: any free port); resolves with its address. */
  async listen (port: number): Promise<string> {
    this.server = http.createServer((request, response) => {
      if (request.method !== 'GET' || request.url !== '/metrics') {
        response.writeHead(404).end()
        return
      }
      this.registry.metrics().then(text => {
        response.writeHead(200, { 'content-type': this.registry.contentType }).end(text)
      }, () => response.writeHead(500).end())
    })
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', (error: NodeJS.ErrnoException) => reject(new MetricsPortError(port, error)))
      this.server!.listen(port, '127.0.0.1', () => resolve())
    })
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/metrics`
    return this.url
  }

  async close (): Promise<void> {
    const server = this.server
    this.server = undefined
    this.url = undefined
    if (server !== undefined) await new Promise(resolve => server.close(resolve))
  }
}

/** prom-client calls `collect` with the metric as `this`, just before each scrape: it starts afresh from `read`. */
function collectFrom<M extends Gauge | Counter> (read: () => Array<[Record<string, string>, number]>, put: (metric: M, labels: Record<string, string>, value: number) => void) {
  return function (this: M): void {
    this.reset()
    for (const [labels, value] of read()) put(this, labels, value)
  }
}
