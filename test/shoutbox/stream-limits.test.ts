import http from 'node:http'
import t from 'tap'
import { clientKey } from '../../src/sdk/client-address.js'
import { build, setUp } from '../helpers/app.js'

interface Opened {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  /** The whole body of a refusal; '' for a stream (it never ends). */
  readonly body: string
  close (): void
}

/** Opens GET /api/shoutbox/stream over its own connection from `localAddress`; resolves with the head (and a refusal's body). */
function openStream (url: string, localAddress = '127.0.0.1', headers: Record<string, string> = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, localAddress, headers: { accept: 'text/event-stream', ...headers } }, response => {
      const close = (): void => { request.destroy() }
      if (response.statusCode === 200) {
        resolve({ status: 200, headers: response.headers, body: '', close })
        return
      }
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { body += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, close }))
    })
    request.on('error', reject)
  })
}

/** A bounded retry: waits up to 5 s for `condition`, checking every 10 ms. */
async function until (condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10)) // between the tries
  }
}

const REFUSED = { result: 'error', error: 'TOO_MANY_REQUESTS' }

t.test('one client opening 400 streams gets 20; the rest are refused in the envelope', async t => {
  const app = await build(t)
  await setUp(app)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const opened = await Promise.all(Array.from({ length: 400 }, () => openStream(url)))
  t.teardown(() => { for (const stream of opened) stream.close() })

  const accepted = opened.filter(o => o.status === 200)
  const refused = opened.filter(o => o.status !== 200)
  t.equal(accepted.length, 20, 'exactly STREAMS_PER_CLIENT (20) streams accepted')
  t.equal(app.eventStreams.size, 20, 'and held')
  t.ok(accepted.every(o => o.headers['content-type'] === 'text/event-stream; charset=utf-8'))
  t.equal(refused.length, 380)
  t.ok(refused.every(o => o.status === 429), 'every other one: 429')
  t.ok(refused.every(o => o.headers['content-type'] === 'application/json; charset=utf-8'), 'JSON, not a stream')
  t.ok(refused.every(o => o.body === JSON.stringify(REFUSED)), 'the whole envelope')
  t.ok(refused.every(o => o.headers['retry-after'] === '10'), 'with Retry-After')

  t.test('closing one lets a new one in, and only one', async t => {
    accepted.pop()!.close()
    await until(() => app.eventStreams.size === 19, 'the closed stream to be released')
    const again = await openStream(url)
    accepted.push(again)
    t.equal(again.status, 200)
    t.equal((await openStream(url)).status, 429)
  })

  t.test('another address still gets in', async t => {
    const other = await openStream(url, '127.0.0.2')
    t.teardown(() => other.close())
    t.equal(other.status, 200)
  })
})

t.test('MAX_STREAMS caps the whole process, whoever asks', async t => {
  const app = await build(t, { config: { streamsPerClient: 20, maxStreams: 25 } })
  await setUp(app)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const first = await Promise.all(Array.from({ length: 20 }, () => openStream(url, '127.0.0.1')))
  const second = await Promise.all(Array.from({ length: 10 }, () => openStream(url, '127.0.0.2')))
  t.teardown(() => { for (const stream of [...first, ...second]) stream.close() })
  t.equal(first.filter(o => o.status === 200).length, 20)
  t.equal(second.filter(o => o.status === 200).length, 5, 'the second client gets what is left of the 25')
  const third = await openStream(url, '127.0.0.3')
  t.same([third.status, JSON.parse(third.body)], [429, REFUSED], 'a third client is refused too')
  t.equal(app.eventStreams.size, 25)
})

t.test('reopening streams far behind in a loop (a replay of 999 events each): one client\'s opens are bounded, its refusals cost no read', async t => {
  const app = await build(t)
  await setUp(app)
  // A busy history: 1,000 events, so each reopen 999 behind is a replay of 999 of them.
  await app.db.raw(`insert into shoutbox_events (kind, shout, created_at)
    select 'shout-created', jsonb_build_object('id', n, 'message', 'shout ' || n || ' ' || repeat('x', 200), 'username', 'admin', 'date', 1795000000000 + n, 'room', 'general'), 0
    from generate_series(1, 1000) as n`)
  const latest = Number((await app.db('shoutbox_events').max<{ max: number }>('id as max').first())!.max)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const behind = { 'last-event-id': String(latest - 999) }
  // The attacker: 20 connections, each reopening at once whenever its stream opens or is refused, for 2 s.
  const started = Date.now()
  let admitted = 0
  const refusals: Opened[] = []
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (Date.now() - started < 2000) {
      const opened = await openStream(url, '127.0.0.1', behind)
      opened.close()
      if (opened.status === 200) admitted++
      else refusals.push(opened)
    }
  }))
  const seconds = (Date.now() - started) / 1000
  // Twice STREAMS_PER_CLIENT at once, then STREAM_OPENS_PER_MINUTE (60): one a second.
  t.ok(admitted >= 40, `the first burst is let in (${admitted})`)
  t.ok(admitted <= 40 + Math.ceil(seconds) + 1, `then one a second: ${admitted} opens in ${seconds.toFixed(1)} s`)
  t.ok(refusals.length > 0, `the rest refused (${refusals.length})`)
  t.ok(refusals.every(o => o.status === 429 && o.body === JSON.stringify(REFUSED)), 'each refusal: 429 in the envelope')
  t.ok(refusals.every(o => Number(o.headers['retry-after']) >= 1), 'with a Retry-After of a second or more')

  t.test('another address is not held up, and gets its replay', async t => {
    const other = await new Promise<string>((resolve, reject) => {
      const request = http.get(url, { agent: false, localAddress: '127.0.0.2', headers: { accept: 'text/event-stream', ...behind } }, response => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          body += chunk
          if (body.includes(`id: ${latest}\n`)) {
            request.destroy()
            resolve(body)
          }
        })
      })
      request.on('error', reject)
    })
    t.equal(other.match(/^event: shout-created$/gm)?.length, 999, 'the 999 events it missed')
  })
})

t.test('whose share a stream counts against', async t => {
  t.equal(clientKey('203.0.113.7'), '203.0.113.7')
  t.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7', 'an IPv4-mapped address is its IPv4 client')
  t.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64', 'an IPv6 client by its /64')
  t.equal(clientKey('2001:DB8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64', 'which it cannot walk through for more streams')
  t.not(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'), 'the next /64 is another client')
})
