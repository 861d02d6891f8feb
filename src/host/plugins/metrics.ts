import fp from 'fastify-plugin'
import { Metrics } from '../services/metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's Prometheus metrics; served on 127.0.0.1:METRICS_PORT when it is set. */
    metrics: Metrics
  }
}

interface Pool { numUsed (): number, numFree (): number, numPendingAcquires (): number }

/**
 * Counts every request Fastify answers, and reads the rest when scraped: the kept answers
 * (served, made from the database, updated in place, dropped), open event streams, the
 * database pool, and Node's own (memory, event-loop delay). `port` undefined: no server.
 */
export const metricsPlugin = fp<{ port: number | undefined }>(async (app, { port }) => {
  const metrics = new Metrics()
  app.decorate('metrics', metrics)

  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequests.inc({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: reply.statusCode })
    done()
  })

  metrics.counterFrom('shoutbox_answer_cache_total', 'Kept answers, by path and what happened: served, made (read from the database), updated (in place), dropped', ['path', 'event'],
    () => [...app.answerCache.entries()].flatMap(([path, cached]) => Object.entries(cached.counts).map(([event, value]): [Record<string, string>, number] => [{ path, event }, value])))
  metrics.gauge('shoutbox_event_streams_open', 'Open event streams (Server-Sent Events) in this process', [],
    () => [[{}, app.eventStreams.size]])
  metrics.gauge('shoutbox_database_pool_connections', 'Connections of the database pool, by state', ['state'], () => {
    const pool = (app.db.client as { pool?: Pool }).pool
    if (pool === undefined) return []
    return [[{ state: 'used' }, pool.numUsed()], [{ state: 'free' }, pool.numFree()], [{ state: 'waiting' }, pool.numPendingAcquires()]]
  })

  if (port !== undefined) {
    app.addHook('onReady', async () => {
      app.log.info(`metrics at ${await metrics.listen(port)}`)
    })
  }
  app.addHook('onClose', async () => metrics.close())
}, { name: 'shoutbox-metrics', dependencies: ['shoutbox-database'] })
