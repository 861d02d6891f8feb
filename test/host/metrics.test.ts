import t from 'tap'
import { build, setUp } from '../helpers/app.js'

/** One sample's value from Prometheus's text format, 0 when it is not there. */
function sample (text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const match = /^([a-z_]+)(\{([^}]*)\})? (\S+)$/.exec(line)
    if (match === null || match[1] !== name) continue
    const found = Object.fromEntries((match[3] ?? '').split(',').filter(Boolean).map(pair => {
      const [key, value] = pair.split('=')
      return [key!, JSON.parse(value!) as string]
    }))
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[4])
  }
  return 0
}

t.test('METRICS_PORT: Prometheus metrics on 127.0.0.1, and the counters move with a publish and a list', async t => {
  const app = await build(t, { config: { metricsPort: 0 } })
  const cookie = await setUp(app)
  await app.ready()
  const url = app.metrics.url!
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'bound to 127.0.0.1')
  const scrape = async (): Promise<string> => {
    const response = await fetch(url)
    t.equal(response.headers.get('content-type')?.startsWith('text/plain'), true)
    return response.text()
  }
  const before = await scrape()
  await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: 'counted' } })
  await app.inject({ url: '/api/shoutbox/list' })
  await app.inject({ url: '/api/shoutbox/list' })
  const after = await scrape()

  const moved = (name: string, labels: Record<string, string> = {}): number => sample(after, name, labels) - sample(before, name, labels)
  t.equal(moved('shoutbox_addon_shoutbox_publishes_total'), 1, 'publishes')
  t.equal(moved('shoutbox_http_requests_total', { route: '/api/panel/shoutbox', method: 'POST', status: '200' }), 1, 'requests by route and status')
  t.equal(moved('shoutbox_answer_cache_total', { path: '/api/shoutbox/list', event: 'served' }), 2, 'list answers served from the cache')
  t.ok(sample(after, 'shoutbox_answer_cache_total', { path: '/api/shoutbox/list', event: 'made' }) >= 1, 'and made from the database')
  t.ok(after.includes('shoutbox_event_streams_open 0'), 'open streams')
  t.match(after, /shoutbox_nodejs_eventloop_lag_seconds \d/, 'event-loop delay')
  t.match(after, /shoutbox_process_resident_memory_bytes \d/, 'resident memory')
  t.equal((await fetch(url.replace('/metrics', '/other'))).status, 404, 'nothing else is served there')
})

t.test('without METRICS_PORT nothing listens', async t => {
  const app = await build(t)
  await app.ready()
  t.equal(app.metrics.url, undefined)
})
