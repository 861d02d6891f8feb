import { createHmac } from 'node:crypto'
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import t from 'tap'
import { createReceiver, type Delivery } from '../../examples/webhook-receiver.mjs'
import { isPrivateAddress } from '../../src/host/webhooks/address-guard.js'
import { build, setUp, type App, type TestAppOptions } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { account } from '../helpers/identity.js'
import { answer, as, error } from '../helpers/requests.js'
import type { Tap } from '../helpers/types.js'

/** Outgoing webhooks: the panel's hooks, the outbox written with each change, signed deliveries, retries, SSRF. */

interface Received {
  readonly headers: http.IncomingHttpHeaders
  readonly raw: string
  readonly body: { id: string, event: string, createdAt: number, data: Record<string, unknown> }
}

/**
 * A receiver on loopback that records every request and answers with `reply` (a status,
 * or 'hang' to never answer).
 */
async function receiver (t: Tap, reply: (received: Received) => number | 'hang' | { status: number, location: string } = () => 200) {
  const received: Received[] = []
  const hanging = new Set<http.ServerResponse>()
  const server = http.createServer((request, response) => {
    let raw = ''
    request.setEncoding('utf8')
    request.on('data', chunk => { raw += chunk })
    request.on('end', () => {
      const entry = { headers: request.headers, raw, body: JSON.parse(raw) as Received['body'] }
      received.push(entry)
      const how = reply(entry)
      if (how === 'hang') {
        hanging.add(response)
        return
      }
      if (typeof how === 'number') response.writeHead(how).end()
      else response.writeHead(how.status, { location: how.location }).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const response of hanging) response.destroy()
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/hook`, received, port }
}

/**
 * A receiver that accepts the connection and then, with `dribble`, answers a status line
 * and a header a byte every 50 ms, never ending (slowloris); without, never a byte. Each
 * connection is told to `onConnection`.
 */
async function tcpReceiver (t: Tap, options: { dribble?: boolean, onConnection?: () => void } = {}) {
  const sockets = new Set<net.Socket>()
  const server = net.createServer(socket => {
    sockets.add(socket)
    socket.resume() // reads what is sent (and so sees the sender close), answers nothing
    socket.on('error', () => {})
    socket.on('close', () => { sockets.delete(socket) })
    options.onConnection?.()
    if (options.dribble !== true) return
    socket.write('HTTP/1.1 200 OK\r\n')
    const timer = setInterval(() => { if (!socket.destroyed) socket.write('x') }, 50)
    socket.on('close', () => { clearInterval(timer) })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  const { port } = server.address() as AddressInfo
  return { url: (path: string) => `http://127.0.0.1:${port}${path}`, connections: () => sockets.size }
}

/** The wait before a failed delivery's next try; a test that must act between tries lengthens it. */
let retryDelay = 30
const QUICK: TestAppOptions = {
  config: { webhooksAllowHttp: true, webhooksAllowPrivate: true },
  webhooks: { pollMs: 20, timeoutMs: 400, retryDelayMs: () => retryDelay, maxAttempts: 4 }
}

const ALL_EVENTS = ['shout.created', 'shout.edited', 'shout.deleted', 'report.created', 'member.muted', 'member.signed_up']

async function hook (app: App, admin: string, url: string, events = ALL_EVENTS): Promise<{ id: number, secret: string }> {
  const created = await as(app, admin).post('/api/panel/webhooks', { url, events })
  if (created.statusCode !== 200) throw new Error(created.body)
  return { id: created.json().webhook.id, secret: created.json().secret }
}

const deliveries = async (app: App, admin: string, id: number) =>
  (await as(app, admin).get(`/api/panel/webhooks/${id}/deliveries`)).json().deliveries as Array<{ id: string, event: string, status: string, attempts: number, responseCode: number | null }>

t.test('managing hooks', async t => {
  const app = await build(t, { config: { webhooksAllowHttp: false } })
  const admin = await setUp(app)
  const mira = await account(app, admin, 'mira')
  const url = '/api/panel/webhooks'

  t.test('a hook is made with its secret shown once; the list never shows it', async t => {
    const created = await as(app, admin).post(url, { url: 'https://chat.example.org/hooks/abc', events: ['shout.created', 'report.created'] })
    t.equal(created.statusCode, 200)
    const { webhook, secret } = created.json()
    t.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/)
    t.same({ ...webhook, createdAt: 0 }, { id: webhook.id, url: 'https://chat.example.org/hooks/abc', events: ['shout.created', 'report.created'], active: true, format: 'shoutbox', room: null, createdAt: 0 })
    const listed = (await as(app, admin).get(url)).json()
    t.same(listed.webhooks, [webhook])
    t.notMatch(JSON.stringify(listed), secret)
    t.same([...listed.events].sort(), [...ALL_EVENTS].sort(), 'the host\'s events and the shoutbox\'s')
    t.equal(listed.allowHttp, false, 'and whether plain http:// is taken (the form\'s hint says so)')
    const changed = await as(app, admin).put(`${url}/${webhook.id}`, { active: false, events: ['shout.deleted'] })
    t.same(changed.json().webhook, { ...webhook, active: false, events: ['shout.deleted'] })
    const logged = await app.db('activity_logs').whereIn('type', ['CREATED_WEBHOOK', 'UPDATED_WEBHOOK']).orderBy('id').select('type', 'details')
    t.same(logged.map(entry => [entry.type, entry.details.host]), [['CREATED_WEBHOOK', 'chat.example.org'], ['UPDATED_WEBHOOK', 'chat.example.org']], 'the feed names the host, never the path')
    t.same(answer(await as(app, admin).delete(`${url}/${webhook.id}`)), [200, { result: 'ok' }])
    t.same(answer(await as(app, admin).delete(`${url}/${webhook.id}`)), [404, error('NOT_FOUND')])
  })

  t.test('bad hooks are refused and nothing is stored', async t => {
    for (const body of [
      { url: 'http://chat.example.org/hook', events: ['shout.created'] },
      { url: 'ftp://chat.example.org/hook', events: ['shout.created'] },
      { url: 'https://user:pass@chat.example.org/hook', events: ['shout.created'] },
      { url: 'not a url at all', events: ['shout.created'] },
      { url: 'https://chat.example.org/hook', events: ['shout.exploded'] },
      { url: 'https://chat.example.org/hook', events: [] },
      { url: 'https://chat.example.org/hook', events: ['shout.created'], secret: 'mine' }
    ]) {
      const refused = await as(app, admin).post(url, body)
      t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], JSON.stringify(body))
    }
    // The reason comes with it: the panel shows it in place of a bare "check what you entered".
    t.same(answer(await as(app, admin).post(url, { url: 'http://chat.example.org/hook', events: ['shout.created'] })),
      [400, error('BAD_REQUEST', { reason: 'url must be https:// (http:// needs WEBHOOKS_ALLOW_HTTP=1)' })])
    t.same(await app.db('webhooks').select('id'), [])
  })

  t.test('attack: a member, a visitor and another site cannot manage hooks', async t => {
    t.same(answer(await as(app, mira).get(url)), [403, error('NO_PERMISSION')])
    t.same(answer(await as(app, mira).post(url, { url: 'https://evil.example/x', events: ['shout.created'] })), [403, error('NO_PERMISSION')])
    t.same(answer(await as(app, undefined).get(url)), [401, error('NOT_LOGGED_IN')])
    const forged = await app.inject({ method: 'POST', url, headers: { cookie: admin, origin: 'https://evil.example' }, payload: { url: 'https://evil.example/x', events: ['shout.created'] } })
    t.same(answer(forged), [403, error('INVALID_ORIGIN')])
    t.same(await app.db('webhooks').select('id'), [])
  })

  t.test('attack: an administrator\'s API token cannot reach the hooks', async t => {
    const { secret } = (await as(app, admin).post('/api/users/me/tokens', { name: 'everything', permissions: ['*'] })).json()
    const bearer = { authorization: `Bearer ${secret}` }
    t.same(answer(await app.inject({ url, headers: bearer })), [403, error('NO_PERMISSION')])
    t.same(answer(await app.inject({ method: 'POST', url, headers: bearer, payload: { url: 'https://evil.example/x', events: ['shout.created'] } })), [403, error('NO_PERMISSION')])
    t.same(await app.db('webhooks').select('id'), [])
  })
})

t.test('deliveries', async t => {
  const app = await build(t, QUICK)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { autoMuteAfter: 0 })

  t.test('each change is delivered, signed, to the hooks subscribed to it', async t => {
    const got: Delivery[] = []
    const checked = createReceiver({ secret: 'later', onEvent: delivery => { got.push(delivery) } })
    const everything = await receiver(t)
    const onlyDeletes = await receiver(t)
    const all = await hook(app, admin, everything.url)
    await hook(app, admin, onlyDeletes.url, ['shout.deleted'])

    const published = await as(app, admin).post('/api/panel/shoutbox', { message: 'hello hooks' })
    t.equal(published.statusCode, 200)
    const shout = (await as(app, admin).get('/api/shoutbox/list')).json().shouts[0]
    // Each sent before the next change: a delete takes the text out of what is still waiting.
    await eventually(() => everything.received.length, n => n >= 1)
    t.equal((await as(app, admin).put(`/api/panel/shoutbox/${shout.id}`, { message: 'hello, hooks' })).statusCode, 200)
    await eventually(() => everything.received.length, n => n >= 2)
    t.equal((await as(app, admin).delete(`/api/panel/shoutbox/${shout.id}`)).statusCode, 200)
    await account(app, admin, 'nia')
    await eventually(() => everything.received.length, n => n >= 3)
    await eventually(() => onlyDeletes.received.length, n => n >= 1)
    const events = everything.received.map(r => r.body.event)
    t.same(events.slice(0, 3), ['shout.created', 'shout.edited', 'shout.deleted'])
    t.same(onlyDeletes.received.map(r => r.body.event), ['shout.deleted'])

    for (const { headers, raw, body } of everything.received) {
      t.equal(headers['content-type'], 'application/json')
      t.equal(headers['shoutbox-event'], body.event)
      t.equal(headers['shoutbox-delivery'], body.id)
      const [, time, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['shoutbox-signature']))!
      t.equal(v1, createHmac('sha256', all.secret).update(`${time}.${raw}`).digest('hex'), `${body.event} is signed with the hook's secret`)
      t.ok(Math.abs(Number(time) - Date.now() / 1000) < 60)
    }
    const created = everything.received.find(r => r.body.event === 'shout.created')!.body
    t.has(created.data, { id: shout.id, room: 'general', username: 'admin', replyTo: null })
    const edited = everything.received.find(r => r.body.event === 'shout.edited')!.body
    t.has(edited.data, { id: shout.id, message: 'hello, hooks' })
    t.same(everything.received.find(r => r.body.event === 'shout.deleted')!.body.data, { id: shout.id, room: 'general' })

    // The example receiver accepts what the board sends, and refuses it under another secret.
    const forExample = everything.received[0]!
    checked.listen(0, '127.0.0.1')
    await new Promise(resolve => checked.once('listening', resolve))
    t.teardown(() => { checked.close() })
    const target = `http://127.0.0.1:${(checked.address() as AddressInfo).port}/`
    const send = async () => fetch(target, { method: 'POST', headers: forExample.headers as Record<string, string>, body: forExample.raw })
    t.equal((await send()).status, 401, 'the example receiver refuses a delivery signed with another secret')
    const rightOne = createReceiver({ secret: all.secret, onEvent: delivery => { got.push(delivery) } })
    rightOne.listen(0, '127.0.0.1')
    await new Promise(resolve => rightOne.once('listening', resolve))
    t.teardown(() => { rightOne.close() })
    const response = await fetch(`http://127.0.0.1:${(rightOne.address() as AddressInfo).port}/`, { method: 'POST', headers: { ...forExample.headers as Record<string, string> }, body: forExample.raw })
    t.equal(response.status, 200, 'and accepts it under the hook\'s own')
    t.same(got.map(delivery => delivery.id), [forExample.body.id])

    const listed = await deliveries(app, admin, all.id)
    t.ok(listed.length >= 3)
    t.ok(listed.filter(d => d.event.startsWith('shout.')).every(d => d.status === 'delivered' && d.attempts === 1 && d.responseCode === 200), 'each delivered at the first try')
    await as(app, admin).delete(`/api/panel/webhooks/${all.id}`)
  })

  t.test('a receiver that fails is tried again until it answers 2xx, then never again; past the last try it is failed', async t => {
    let calls = 0
    const flaky = await receiver(t, () => ++calls <= 2 ? 500 : 200)
    const { id } = await hook(app, admin, flaky.url, ['shout.created'])
    await as(app, admin).post('/api/panel/shoutbox', { message: 'third time lucky' })
    await eventually(() => deliveries(app, admin, id), list => list[0]?.status === 'delivered')
    const [delivery] = await deliveries(app, admin, id)
    t.has(delivery, { event: 'shout.created', status: 'delivered', attempts: 3, responseCode: 200 })
    t.equal(new Set(flaky.received.map(r => r.body.id)).size, 1, 'the same delivery id each time')
    await new Promise(resolve => setTimeout(resolve, 200)) // several polls: nothing more is sent
    t.equal(flaky.received.length, 3)

    const broken = await receiver(t, () => 503)
    await as(app, admin).put(`/api/panel/webhooks/${id}`, { url: broken.url })
    await as(app, admin).post('/api/panel/shoutbox', { message: 'never lucky' })
    await eventually(() => deliveries(app, admin, id), list => list[0]?.status === 'failed')
    t.has((await deliveries(app, admin, id))[0], { status: 'failed', attempts: 4, responseCode: 503 })
    t.equal(broken.received.length, 4, 'maxAttempts tries, no more')

    t.test('redeliver queues it again, with the same id', async t => {
      const failed = (await deliveries(app, admin, id))[0]!
      await as(app, admin).put(`/api/panel/webhooks/${id}`, { url: flaky.url })
      const queued = await as(app, admin).post(`/api/panel/webhooks/${id}/deliveries/${failed.id}/redeliver`, {})
      t.has(queued.json().delivery, { id: failed.id, status: 'pending', attempts: 0 })
      await eventually(() => flaky.received.length, n => n === 4)
      t.equal(flaky.received[3]!.body.id, failed.id)
      t.same(answer(await as(app, admin).post(`/api/panel/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`, {})), [404, error('NOT_FOUND')])
      t.equal((await as(app, admin).post(`/api/panel/webhooks/${id}/deliveries/not-a-uuid/redeliver`, {})).statusCode, 400)
    })

    t.test('a ping goes to this hook alone', async t => {
      const pinged = await as(app, admin).post(`/api/panel/webhooks/${id}/ping`, {})
      t.has(pinged.json().delivery, { event: 'ping', status: 'pending' })
      await eventually(() => flaky.received.some(r => r.body.event === 'ping'), found => found)
      t.same(flaky.received.find(r => r.body.event === 'ping')!.body.data, { hookId: id })
      t.same(answer(await as(app, admin).post('/api/panel/webhooks/99999/ping', {})), [404, error('NOT_FOUND')])
    })
    t.teardown(() => as(app, admin).delete(`/api/panel/webhooks/${id}`))
  })

  t.test('a delivery still pending when its shout is deleted carries no text', async t => {
    let up = false
    const later = await receiver(t, () => up ? 200 : 503)
    const { id } = await hook(app, admin, later.url, ['shout.created'])
    retryDelay = 1000
    t.teardown(() => { retryDelay = 30 })
    await as(app, admin).post('/api/panel/shoutbox', { message: 'a secret nobody should keep' })
    const shout = (await as(app, admin).get('/api/shoutbox/list')).json().shouts[0]
    // Tried once and refused: it waits for its next try.
    await eventually(() => deliveries(app, admin, id), list => list[0]?.responseCode === 503)
    t.equal((await as(app, admin).delete(`/api/panel/shoutbox/${shout.id}`)).statusCode, 200)
    const before = later.received.length
    up = true
    await eventually(() => deliveries(app, admin, id), list => list[0]?.status === 'delivered')
    const after = later.received.slice(before)
    t.equal(after.length, 1)
    t.same(after[0]!.body.data, { id: shout.id, room: 'general', username: 'admin', date: shout.date, replyTo: null, deleted: true })
    t.notMatch(after[0]!.raw, 'secret nobody')
    await as(app, admin).delete(`/api/panel/webhooks/${id}`)
  })

  t.test('a member\'s report, a mute and a sign-up are delivered too', async t => {
    const all = await receiver(t)
    const { id } = await hook(app, admin, all.url, ['report.created', 'member.muted', 'member.signed_up'])
    const ren = await account(app, admin, 'ren')
    const lea = await account(app, admin, 'lea')
    await as(app, ren).post('/api/shoutbox', { message: 'report me' })
    const shout = (await as(app, admin).get('/api/shoutbox/list')).json().shouts[0]
    t.equal((await as(app, lea).post(`/api/shoutbox/shouts/${shout.id}/report`, { reason: 'spam' })).statusCode, 200)
    const renId = (await app.db('users').where({ username: 'ren' }).first('id')).id
    t.equal((await as(app, admin).post('/api/panel/shoutbox/mutes', { userId: renId, minutes: 10 })).statusCode, 200)
    await app.inject({ method: 'PUT', url: '/api/panel/settings', headers: { cookie: admin }, payload: { signUp: true } })
    t.equal((await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { username: 'newbie', email: 'newbie@example.org', password: 'a long password' } })).statusCode, 200)
    await eventually(() => all.received.length, n => n >= 3)
    const byEvent = Object.fromEntries(all.received.map(r => [r.body.event, r.body.data]))
    t.has(byEvent['report.created'], { shoutId: shout.id, room: 'general', reason: 'spam', reporter: 'lea' })
    t.has(byEvent['member.muted'], { userId: renId, username: 'ren', by: 'admin' })
    t.has(byEvent['member.signed_up'], { username: 'newbie' })
    await as(app, admin).delete(`/api/panel/webhooks/${id}`)
  })

  t.test('attack: a slow receiver that never answers is bounded, and the board is not slowed', async t => {
    retryDelay = 60_000
    t.teardown(() => { retryDelay = 30 })
    const slow = await receiver(t, () => 'hang')
    const { id } = await hook(app, admin, slow.url, ['shout.created'])
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => as(app, admin).post('/api/panel/shoutbox', { message: `busy ${n}` })))
    t.same(new Set(answers.map(a => a.statusCode)), new Set([200]), 'every publish answered while the receiver hangs')
    await eventually(() => slow.received.length, n => n >= 20)
    // Each try given up on after the timeout: its claim let go, the delivery waiting for its next try.
    const givenUp = async () => Number((await app.db('webhook_deliveries').where({ hook_id: id, status: 'pending' }).whereNull('locked_until').where('attempts', 1).count({ n: '*' }))[0]!.n)
    t.equal((await eventually(givenUp, n => n === 20)).value, 20, 'each was tried once, and given up on after the timeout')
    t.ok((await deliveries(app, admin, id)).every(d => d.responseCode === null), 'with no answer')
    await as(app, admin).delete(`/api/panel/webhooks/${id}`)
  })

  t.test('a hook whose try had no answer gets one try at a time until it answers', async t => {
    retryDelay = 60_000
    t.teardown(() => { retryDelay = 30 })
    const silent = await tcpReceiver(t)
    const { id } = await hook(app, admin, silent.url('/hook'), ['shout.created'])
    const rows = () => app.db('webhook_deliveries').where({ hook_id: id }).select('attempts', 'locked_until')
    const givenUp = (list: Array<{ attempts: number, locked_until: unknown }>, n: number) => list.length === n && list.every(row => row.attempts === 1 && row.locked_until === null)
    await as(app, admin).post('/api/panel/shoutbox', { message: 'anyone?' })
    await eventually(rows, list => givenUp(list, 1))
    await Promise.all([1, 2, 3, 4].map(async n => as(app, admin).post('/api/panel/shoutbox', { message: `anyone ${n}?` })))
    let most = 0
    const done = await eventually(async () => {
      most = Math.max(most, silent.connections())
      return rows()
    }, list => givenUp(list, 5))
    t.ok(givenUp(done.value, 5), 'each tried once and given up on')
    t.equal(most, 1, 'one at a time')
    await as(app, admin).delete(`/api/panel/webhooks/${id}`)
  })

  t.test('attack: a receiver that answers a byte at a time (slowloris) is cut off at the timeout', async t => {
    retryDelay = 60_000
    t.teardown(() => { retryDelay = 30 })
    let connections = 0
    const dribbling = await tcpReceiver(t, { dribble: true, onConnection: () => { connections++ } })
    const { id } = await hook(app, admin, dribbling.url('/hook'), ['shout.created'])
    await as(app, admin).post('/api/panel/shoutbox', { message: 'take your time' })
    const tried = await eventually(() => app.db('webhook_deliveries').where({ hook_id: id }).select('status', 'attempts', 'response_code', 'locked_until'), rows => rows[0]?.attempts === 1 && rows[0].locked_until === null)
    t.same(tried.value, [{ status: 'pending', attempts: 1, response_code: null, locked_until: null }], 'the try given up on, waiting for its next')
    t.equal(connections, 1)
    await eventually(() => dribbling.connections(), n => n === 0)
    t.equal(dribbling.connections(), 0, 'and its connection closed, though the receiver was still sending')
    await as(app, admin).delete(`/api/panel/webhooks/${id}`)
  })

  t.test('attack: a redirect is not followed', async t => {
    const inner = await receiver(t)
    const redirecting = await receiver(t, () => ({ status: 307, location: inner.url }))
    const { id } = await hook(app, admin, redirecting.url, ['shout.created'])
    await as(app, admin).post('/api/panel/shoutbox', { message: 'go elsewhere' })
    await eventually(() => redirecting.received.length, n => n >= 2)
    t.equal(inner.received.length, 0)
    t.has((await deliveries(app, admin, id))[0], { status: 'pending', responseCode: 307 })
    await as(app, admin).delete(`/api/panel/webhooks/${id}`)
  })
})

t.test('attack: receivers that never answer delay only their own deliveries', async t => {
  // The real timeout, and room for four tries at a time in all: three silent hooks could fill it.
  const app = await build(t, { ...QUICK, webhooks: { ...QUICK.webhooks, timeoutMs: 10_000, concurrency: 4, perHook: 4 } })
  const admin = await setUp(app)
  const events: string[] = []
  const silent = await tcpReceiver(t, { onConnection: () => { events.push('silent tried') } })
  const healthy = await receiver(t)
  const silentHooks = [
    await hook(app, admin, silent.url('/one'), ['shout.created']),
    await hook(app, admin, silent.url('/two'), ['shout.created']),
    await hook(app, admin, silent.url('/three'), ['shout.created'])
  ]
  await hook(app, admin, healthy.url, ['shout.created'])
  const N = 8
  for (let n = 0; n < N; n++) {
    t.equal((await as(app, admin).post('/api/panel/shoutbox', { message: `shout ${n}` })).statusCode, 200)
    await eventually(() => healthy.received.length, count => count > n)
    events.push(`healthy got ${healthy.received.length}`)
  }
  t.same(healthy.received.map(r => r.body.data.message), Array.from({ length: N }, (_, n) => `shout ${n}`), 'each shout reached the healthy receiver, one after another')
  t.ok(events.indexOf('silent tried') < events.indexOf('healthy got 2'), 'the silent receivers were tried before the healthy one\'s second delivery')
  // Not one silent try has timed out yet: each is still in flight, its claim held, no answer recorded.
  const silentRows = await app.db('webhook_deliveries').whereIn('hook_id', silentHooks.map(h => h.id)).select('status', 'attempts', 'response_code', 'locked_until')
  t.equal(silentRows.length, 3 * N)
  t.same(silentRows.filter(row => row.attempts > 0).map(row => [row.status, row.attempts, row.response_code, row.locked_until !== null]),
    silentRows.filter(row => row.attempts > 0).map(() => ['pending', 1, null, true]), 'the silent hooks\' tries are all still waiting for their first answer')
  t.ok(silentRows.some(row => row.attempts === 1), 'and they were tried')
  t.ok(silentRows.some(row => row.attempts === 0), 'while the rest of theirs wait their turn')
})

t.test('attack: a path that never answers does not hold the sockets of another hook on the same host and port', async t => {
  const app = await build(t, { ...QUICK, webhooks: { ...QUICK.webhooks, timeoutMs: 10_000 } })
  const admin = await setUp(app)
  const hanging = new Set<http.ServerResponse>()
  const healthy: string[] = []
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      if (request.url === '/silent') hanging.add(response)
      else {
        healthy.push(String(request.headers['shoutbox-delivery']))
        response.writeHead(200).end()
      }
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const response of hanging) response.destroy()
    server.closeAllConnections()
    server.close()
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const silent = await hook(app, admin, `${origin}/silent`, ['shout.created'])
  await hook(app, admin, `${origin}/healthy`, ['shout.created'])
  const N = 40 // more than a usual cap of sockets per origin
  const answers = await Promise.all(Array.from({ length: N }, async (_, n) => as(app, admin).post('/api/panel/shoutbox', { message: `same host ${n}` })))
  t.same(new Set(answers.map(a => a.statusCode)), new Set([200]))
  await eventually(() => healthy.length, n => n >= N)
  t.equal(healthy.length, N, 'every delivery reached the healthy path')
  const silentRows = await app.db('webhook_deliveries').where({ hook_id: silent.id }).select('attempts', 'response_code', 'locked_until')
  t.same(silentRows.map(row => [row.attempts, row.response_code, row.locked_until !== null]), silentRows.map(() => [1, null, true]), 'while every try of the silent path is still waiting for its answer')
  t.equal(silentRows.length, N)
})

t.test('attack: SSRF — private addresses are refused when sent', async t => {
  const resolved: Record<string, string> = { 'metadata.test': '169.254.169.254', 'intranet.test': '10.1.2.3', 'home.test': '192.168.1.1', 'mapped.test': '::ffff:127.0.0.1', 'public.test': '127.0.0.1' }
  const app = await build(t, {
    config: { webhooksAllowHttp: true, webhooksAllowPrivate: false },
    webhooks: {
      pollMs: 20,
      timeoutMs: 400,
      retryDelayMs: () => 60_000,
      // A name whose resolution never ends is bounded by the try's timeout like a silent receiver.
      resolve: async name => name === 'stuck.test' ? new Promise(() => {}) : [{ address: resolved[name] ?? '127.0.0.1', family: resolved[name]?.includes(':') === true ? 6 : 4 }]
    }
  })
  const admin = await setUp(app)
  const target = await receiver(t)
  const ids: number[] = []
  for (const url of [
    target.url, `http://localhost:${target.port}/hook`, `http://[::1]:${target.port}/hook`, `http://0.0.0.0:${target.port}/hook`,
    `http://metadata.test:${target.port}/latest/meta-data`, `http://intranet.test:${target.port}/`, `http://home.test:${target.port}/`, `http://mapped.test:${target.port}/`,
    `http://2130706433:${target.port}/`, `http://stuck.test:${target.port}/`
  ]) ids.push((await hook(app, admin, url, ['shout.created'])).id)
  await as(app, admin).post('/api/panel/shoutbox', { message: 'is anybody in there' })
  for (const id of ids) {
    await eventually(() => deliveries(app, admin, id), list => list[0]?.attempts === 1)
    t.has((await deliveries(app, admin, id))[0], { status: 'pending', attempts: 1, responseCode: null })
  }
  t.equal(target.received.length, 0, 'nothing reached the loopback receiver')

  for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '224.0.0.1']) {
    t.ok(isPrivateAddress(address), `${address} is private`)
  }
  for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1']) t.notOk(isPrivateAddress(address), `${address} is public`)
})

t.test('two processes send each delivery once', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  // A try answered after its timeout is sent again, by design (at least once): on a loaded
  // machine 400 ms is too short to tell that from two processes sending the same delivery.
  const unhurried: TestAppOptions = { ...QUICK, db, webhooks: { ...QUICK.webhooks, timeoutMs: 5000 } }
  const one = await build(t, unhurried)
  const admin = await setUp(one)
  const two = await build(t, unhurried)
  const target = await receiver(t)
  await hook(one, admin, target.url, ['shout.created'])
  const answers = await Promise.all(Array.from({ length: 120 }, (_, n) => as(n % 2 === 0 ? one : two, admin).post('/api/panel/shoutbox', { message: `shout ${n}` })))
  t.same(new Set(answers.map(a => a.statusCode)), new Set([200]))
  await eventually(() => target.received.length, n => n >= 120, 20_000)
  await new Promise(resolve => setTimeout(resolve, 200))
  const ids = target.received.map(r => r.body.id)
  t.equal(ids.length, 120, 'one request per delivery')
  t.equal(new Set(ids).size, 120)
  t.same(new Set(target.received.map(r => r.body.data.message)).size, 120, 'each shout told once')
})

t.test('deliveries done with leave the log after 30 days, pruned at most once an hour; waiting ones stay, however old', async t => {
  let clock = Date.now()
  const app = await build(t, { ...QUICK, webhooks: { ...QUICK.webhooks, now: () => clock } })
  const admin = await setUp(app)
  const target = await receiver(t)
  const { id: hookId } = await hook(app, admin, target.url, ['shout.created'])
  const DAY = 24 * 60 * 60_000
  const row = (status: string, ageDays: number) => ({
    hook_id: hookId, event: 'shout.created', data: JSON.stringify({ status, ageDays }), status, next_attempt_at: clock + 365 * DAY, created_at: clock - ageDays * DAY
  })
  await app.db('webhook_deliveries').insert([row('delivered', 31), row('failed', 40), row('pending', 31), row('delivered', 29), row('failed', 1)])
  const left = async () => (await app.db('webhook_deliveries').orderBy('created_at').select('data')).map(r => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { status: string, ageDays: number })
  // The sender pruned as it started; within the hour it does not again, however many rounds it runs.
  await new Promise(resolve => setTimeout(resolve, 300))
  t.equal((await left()).length, 5, 'nothing pruned within the hour')
  clock += 61 * 60_000
  const after = await eventually(left, rows => rows.length < 5)
  t.same(after.value, [{ status: 'pending', ageDays: 31 }, { status: 'delivered', ageDays: 29 }, { status: 'failed', ageDays: 1 }], 'the done ones over 30 days old are gone; a waiting one stays')
})
