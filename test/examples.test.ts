/**
 * The runnable examples in examples/ (§18): the webhook receiver checks the signature and
 * the timestamp and de-duplicates by id; the bot posts a shout with an API token; the
 * board bridge joins two boards' rooms both ways, with no echo.
 */
import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { bridgeBoards } from '../examples/board-bridge.mjs'
import { postShout } from '../examples/bot.mjs'
import { createReceiver, type Delivery } from '../examples/webhook-receiver.mjs'
import { ADMIN, build, setUp } from './helpers/app.js'
import { eventually } from './helpers/eventually.js'
import { account } from './helpers/identity.js'

/** The part of tap's test object the helpers use. */
interface Teardown {
  teardown (fn: () => unknown): void
}

const SECRET = 'whsec_test_secret'
const NOW = Date.UTC(2025, 0, 1, 12, 0, 0)
const NOW_SECONDS = Math.floor(NOW / 1000)

async function listen (t: Teardown, server: http.Server): Promise<string> {
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function sign (body: string, { secret = SECRET, timestamp = NOW_SECONDS } = {}): string {
  const v1 = crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
  return `t=${timestamp},v1=${v1}`
}

function deliveryBody (id: string): string {
  return JSON.stringify({ id, event: 'shout.created', createdAt: new Date(NOW).toISOString(), data: { shout: { id: 7, message: 'hi' } } })
}

interface SendOptions {
  method?: string
  body?: string
  signature?: string | null
  id?: string
}

async function startReceiver (t: Teardown): Promise<{ send: (options?: SendOptions) => Promise<number>, events: Delivery[] }> {
  const events: Delivery[] = []
  const server = createReceiver({ secret: SECRET, now: () => NOW, onEvent: delivery => { events.push(delivery) } })
  const url = await listen(t, server)
  async function send ({ method = 'POST', body, signature, id = 'd1' }: SendOptions = {}): Promise<number> {
    const text = body ?? deliveryBody(id)
    const headers: Record<string, string> = { 'content-type': 'application/json', 'shoutbox-event': 'shout.created', 'shoutbox-delivery': id }
    const header = signature === undefined ? sign(text) : signature
    if (header !== null) headers['shoutbox-signature'] = header
    const response = await fetch(url, { method, headers, body: method === 'GET' ? undefined : text })
    await response.arrayBuffer()
    // onEvent runs just after the answer is sent.
    await new Promise(resolve => setImmediate(resolve))
    return response.status
  }
  return { send, events }
}

t.test('the webhook receiver', async t => {
  t.test('a good signature is accepted once; the same delivery again is acknowledged but not handled', async t => {
    const { send, events } = await startReceiver(t)
    t.equal(await send({ id: 'd1' }), 200)
    t.equal(events.length, 1)
    t.equal(events[0]?.id, 'd1')
    t.equal(events[0]?.event, 'shout.created')
    t.same(events[0]?.data, { shout: { id: 7, message: 'hi' } })
    t.equal(await send({ id: 'd1' }), 200, 'a repeated delivery still gets a 2xx')
    t.equal(events.length, 1, 'onEvent is not called again')
    t.equal(await send({ id: 'd2' }), 200)
    t.equal(events.length, 2, 'another delivery is handled')
  })

  t.test('one of several v1 signatures may match (secret rotation)', async t => {
    const { send, events } = await startReceiver(t)
    const body = deliveryBody('d3')
    const good = sign(body)
    const other = sign(body, { secret: 'old secret' })
    t.equal(await send({ id: 'd3', body, signature: `${other},${good.split(',')[1]}` }), 200)
    t.equal(events.length, 1)
  })

  t.test('a signature that does not match is refused with 401', async t => {
    const { send, events } = await startReceiver(t)
    t.equal(await send({ signature: sign(deliveryBody('d1'), { secret: 'wrong secret' }) }), 401, 'wrong secret')
    const body = deliveryBody('d1')
    t.equal(await send({ body: body.replace('hi', 'ho'), signature: sign(body) }), 401, 'body changed after signing')
    t.equal(await send({ signature: sign(deliveryBody('d1')).replace(/v1=[0-9a-f]{4}/, 'v1=0000') }), 401, 'signature changed')
    t.equal(events.length, 0)
  })

  t.test('a timestamp more than 5 minutes away is refused with 401', async t => {
    const { send, events } = await startReceiver(t)
    const body = deliveryBody('d1')
    t.equal(await send({ body, signature: sign(body, { timestamp: NOW_SECONDS - 360 }) }), 401, '6 minutes old')
    t.equal(await send({ body, signature: sign(body, { timestamp: NOW_SECONDS + 360 }) }), 401, '6 minutes in the future')
    t.equal(events.length, 0)
    t.equal(await send({ body, signature: sign(body, { timestamp: NOW_SECONDS - 240 }) }), 200, '4 minutes old is within the tolerance')
    t.equal(events.length, 1)
  })

  t.test('a missing or malformed header is refused with 400', async t => {
    const { send, events } = await startReceiver(t)
    const body = deliveryBody('d1')
    const v1 = sign(body).split(',')[1]
    t.equal(await send({ body, signature: null }), 400, 'no Shoutbox-Signature')
    t.equal(await send({ body, signature: `t=abc,${v1}` }), 400, 't=abc')
    t.equal(await send({ body, signature: `t=${NOW_SECONDS}` }), 400, 'no v1')
    t.equal(await send({ body, signature: `t=${NOW_SECONDS},v1=zz` }), 400, 'v1 not hex')
    t.equal(await send({ body, signature: '' }), 400, 'empty header')
    t.equal(events.length, 0)
  })

  t.test('only POST is accepted', async t => {
    const { send } = await startReceiver(t)
    t.equal(await send({ method: 'GET' }), 405)
    t.equal(await send({ method: 'PUT' }), 405)
  })

  t.test('a body that is not JSON is refused with 400, even when signed', async t => {
    const { send, events } = await startReceiver(t)
    t.equal(await send({ body: '{"id":', signature: sign('{"id":') }), 400)
    t.equal(await send({ body: '[1,2]', signature: sign('[1,2]') }), 400, 'JSON that is not a delivery')
    t.equal(events.length, 0)
  })

  t.test('a body over 1 MiB is refused', async t => {
    const { send, events } = await startReceiver(t)
    const body = JSON.stringify({ id: 'big', event: 'shout.created', createdAt: '', data: 'x'.repeat(1024 * 1024) })
    t.equal(await send({ body, signature: sign(body) }), 413)
    t.equal(events.length, 0)
  })
})

t.test('the bot', async t => {
  const TOKEN = 'sbx_' + crypto.randomBytes(32).toString('base64url')
  t.equal(TOKEN.length, 4 + 43)
  const seen: Array<{ path: string | undefined, body: unknown, contentType: string | undefined }> = []
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      seen.push({ path: request.url, body, contentType: request.headers['content-type'] })
      const reply = (status: number, answer: unknown, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers })
        response.end(JSON.stringify(answer))
      }
      if (request.method !== 'POST') return reply(404, { result: 'error', error: 'NOT_FOUND' })
      if (request.headers.authorization !== `Bearer ${TOKEN}`) return reply(401, { result: 'error', error: 'NOT_LOGGED_IN', message: 'Sign in first.' })
      const message = (body as { message: string }).message
      // The flood limits: the first try of "too soon" is answered as a bot's shout too soon after its last.
      if (message === 'too soon' && seen.filter(each => (each.body as { message: string }).message === 'too soon').length === 1) {
        return reply(429, { result: 'error', error: 'TOO_MANY_REQUESTS', retryAfter: 1 }, { 'retry-after': '1' })
      }
      if (request.url === '/api/shoutbox') return reply(200, { result: 'ok', shout: { id: 1, message, bot: true } })
      if (request.url === '/api/shoutbox/rooms/general/shouts') return reply(200, { result: 'ok', shout: { id: 2, message, room: 'general', bot: true } })
      return reply(404, { result: 'error', error: 'NO_SUCH_ROOM' })
    })
  })
  const baseUrl = await listen(t, server)

  t.test('posts to /api/shoutbox with the Bearer token', async t => {
    const answer = await postShout({ baseUrl, token: TOKEN, message: 'Hello from the bot' })
    t.same(answer, { result: 'ok', shout: { id: 1, message: 'Hello from the bot', bot: true } })
    t.same(seen.at(-1), { path: '/api/shoutbox', body: { message: 'Hello from the bot' }, contentType: 'application/json' })
  })

  t.test('posts to a room\'s endpoint when a room is given', async t => {
    const answer = await postShout({ baseUrl: `${baseUrl}/`, token: TOKEN, message: 'Hi, general', room: 'general' })
    t.equal(answer.result, 'ok')
    t.equal(answer.shout.room, 'general')
    t.equal(seen.at(-1)?.path, '/api/shoutbox/rooms/general/shouts')
  })

  t.test('a 429 (bots have flood limits): waits Retry-After, says so, and tries again', async t => {
    const waits: number[] = []
    const answer = await postShout({ baseUrl, token: TOKEN, message: 'too soon', onWait: seconds => waits.push(seconds) })
    t.same(answer, { result: 'ok', shout: { id: 1, message: 'too soon', bot: true } })
    t.same(waits, [1], 'told to wait the second the server asked')
    t.equal(seen.filter(each => (each.body as { message: string }).message === 'too soon').length, 2, 'sent twice')
    await t.rejects(postShout({ baseUrl, token: 'sbx_' + 'A'.repeat(43), message: 'nope', onWait: () => t.fail('a 401 is not waited on') }), { message: /NOT_LOGGED_IN.*401/, status: 401 })
  })

  t.test('throws naming the error code and the status on a refusal', async t => {
    await t.rejects(postShout({ baseUrl, token: 'sbx_' + 'A'.repeat(43), message: 'nope' }), { message: /NOT_LOGGED_IN/, code: 'NOT_LOGGED_IN', status: 401 })
    await t.rejects(postShout({ baseUrl, token: TOKEN, message: 'nope', room: 'nowhere' }), { message: /NO_SUCH_ROOM.*404/ })
  })
})

t.test('the two-board bridge: a shout on either board appears once on the other, never echoed back', async t => {
  const quick = { config: { webhooksAllowHttp: true, webhooksAllowPrivate: true }, webhooks: { pollMs: 20 } }
  const boards = []
  for (const name of ['a', 'b']) {
    const app = await build(t, quick)
    const admin = await setUp(app)
    await app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie: admin }, payload: { minSecondsBetweenShouts: 0 } })
    const member = await account(app, admin, `member-${name}`)
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    boards.push({ app, admin, member, url })
  }
  const [a, b] = boards as [typeof boards[0], typeof boards[0]]
  const bridge = await bridgeBoards({
    a: { url: a.url, username: ADMIN.username, password: ADMIN.password, name: 'board A' },
    b: { url: b.url, username: ADMIN.username, password: ADMIN.password, name: 'board B' }
  })
  const shoutsOf = async (board: typeof a) => ((await board.app.inject({ url: '/api/shoutbox/latest?room=general' })).json().shouts as Array<{ message: string, username: string, via?: string }>)
    .map(shout => [shout.message, shout.username, shout.via ?? null])
  const say = (board: typeof a, message: string) => board.app.inject({ method: 'POST', url: '/api/shoutbox', headers: { cookie: board.member }, payload: { message } })

  t.equal((await say(a, 'hello from A <b>&</b>')).statusCode, 200)
  t.equal((await say(b, 'hello from B **bold**')).statusCode, 200)
  const onB = await eventually(() => shoutsOf(b), shouts => shouts.length >= 2)
  const onA = await eventually(() => shoutsOf(a), shouts => shouts.length >= 2)
  t.ok(onA.ms < Infinity && onB.ms < Infinity, `each reached the other (A in ${onA.ms} ms, B in ${onB.ms} ms)`)

  // Everything either board had to send is sent: then nothing more can come.
  const settled = async (board: typeof a, id: number) => ((await board.app.inject({ url: `/api/panel/webhooks/${id}/deliveries`, headers: { cookie: board.admin } })).json().deliveries as Array<{ status: string }>)
  const aSent = await eventually(() => settled(a, bridge.aToB.webhookId), deliveries => deliveries.length > 0 && deliveries.every(each => each.status === 'delivered'))
  const bSent = await eventually(() => settled(b, bridge.bToA.webhookId), deliveries => deliveries.length > 0 && deliveries.every(each => each.status === 'delivered'))
  t.equal(aSent.value.length, 1, 'A sent its own shout, and not the one that came from B')
  t.equal(bSent.value.length, 1, 'B sent its own shout, and not the one that came from A')
  t.same((await shoutsOf(a)).sort(), [['hello from A <b>&</b>', 'member-a', null], ['hello from B **bold**', 'member-b', 'board B']], 'A: its own shout and B\'s, once each, as written')
  t.same((await shoutsOf(b)).sort(), [['hello from A <b>&</b>', 'member-a', 'board A'], ['hello from B **bold**', 'member-b', null]], 'B: its own shout and A\'s, once each, as written')

  await bridge.unbridge()
  t.same((await a.app.inject({ url: '/api/panel/shoutbox/incoming', headers: { cookie: a.admin } })).json().hooks, [], 'unbridged: the hooks are gone')
})
