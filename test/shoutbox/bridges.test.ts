import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { account, roleWith } from '../helpers/identity.js'
import { answer, as, error } from '../helpers/requests.js'
import { connectSse } from '../helpers/sse.js'
import type { Tap } from '../helpers/types.js'

/**
 * Bridges: incoming hooks (a secret URL per room that takes Slack's and Discord's
 * bodies) and the outgoing webhooks' `slack` and `discord` formats — against local
 * receivers, with the attacks: guessed URLs, a flood, markup, a hook in a staff room.
 */

const PUBLIC_URL = 'https://shouts.example.org'
const QUICK = {
  config: { webhooksAllowHttp: true, webhooksAllowPrivate: true, publicUrl: PUBLIC_URL },
  webhooks: { pollMs: 20, timeoutMs: 2000, retryDelayMs: () => 30, maxAttempts: 3 }
}

interface Received { headers: http.IncomingHttpHeaders, raw: string, body: Record<string, unknown> }

/** A receiver on loopback that records what it is sent and answers 200. */
async function receiver (t: Tap) {
  const received: Received[] = []
  const server = http.createServer((request, response) => {
    let raw = ''
    request.setEncoding('utf8')
    request.on('data', chunk => { raw += chunk })
    request.on('end', () => {
      received.push({ headers: request.headers, raw, body: JSON.parse(raw) as Record<string, unknown> })
      response.writeHead(200).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received }
}

/** The path of an incoming hook's URL (what follows PUBLIC_URL). */
const pathOf = (url: string): string => url.slice(PUBLIC_URL.length)

async function incomingHook (app: App, cookie: string, room: string, name: string): Promise<{ id: number, path: string }> {
  const made = await as(app, cookie).post('/api/panel/shoutbox/incoming', { room, name })
  if (made.statusCode !== 200) throw new Error(made.body)
  return { id: made.json().hook.id, path: pathOf(made.json().url as string) }
}

const post = (app: App, path: string, payload: Record<string, unknown>) => app.inject({ method: 'POST', url: path, payload })

/** The newest shouts of `room` as `cookie`'s holder reads them. */
async function latest (app: App, cookie: string | undefined, room = 'general'): Promise<Array<Record<string, unknown>>> {
  const response = await as(app, cookie).get(`/api/shoutbox/latest?room=${room}`)
  return response.statusCode === 200 ? response.json().shouts : []
}

t.test('incoming hooks', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const app = await build(t, { ...QUICK, db })
  const admin = await setUp(app)
  // Only what is tested here limits posting: the flood rules of members are not a hook's.
  const member = await account(app, admin, 'mira')
  const hooksOnly = await account(app, admin, 'hooky', await roleWith(app, admin, 'hook-keepers', ['panel.access', 'panel.manage.webhooks']))
  // Read by moderators only: not by a panel user who keeps hooks, nor by members.
  const staffRoom = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'addon.shoutbox.manage.shoutbox', post: 'addon.shoutbox.manage.shoutbox' })
  t.equal(staffRoom.statusCode, 200)
  const url = '/api/panel/shoutbox/incoming'

  t.test('a hook is made for a room; its URL (with the secret) is shown once; listed and removed as webhooks are', async t => {
    const made = await as(app, admin).post(url, { room: 'general', name: 'Discord #lobby' })
    t.equal(made.statusCode, 200)
    const body = made.json()
    t.same(Object.keys(body).sort(), ['hook', 'result', 'url'])
    t.same(body.hook, { id: body.hook.id, room: 'general', name: 'Discord #lobby' })
    t.match(body.url, new RegExp(`^${PUBLIC_URL}/hooks/incoming/${body.hook.id as number}/[A-Za-z0-9_-]{43}$`), 'PUBLIC_URL, the id and 32 random bytes')
    const secret = (body.url as string).split('/').at(-1)!
    const stored = await app.db('shoutbox_incoming_hooks').where({ id: body.hook.id }).first()
    t.notMatch(JSON.stringify(stored), secret, 'the secret is not stored')
    t.equal(Buffer.from(stored.secret_hash).length, 32, 'its SHA-256 is')
    const listed = await as(app, admin).get(url)
    t.same(answer(listed), [200, { result: 'ok', hooks: [body.hook] }])
    t.notMatch(listed.body, secret)
    const feed = await app.db('activity_logs').whereIn('type', ['CREATED_INCOMING_HOOK', 'DELETED_INCOMING_HOOK']).orderBy('id').select('type', 'details')
    t.same(feed.map(entry => [entry.type, entry.details]), [['CREATED_INCOMING_HOOK', { hookId: body.hook.id, name: 'Discord #lobby', room: 'general' }]])
    t.same(answer(await as(app, admin).delete(`${url}/${body.hook.id as number}`)), [200, { result: 'ok' }])
    t.same(answer(await as(app, admin).delete(`${url}/${body.hook.id as number}`)), [404, error('NOT_FOUND')])
    const logged = await app.db('activity_logs').where({ type: 'DELETED_INCOMING_HOOK' }).first()
    t.same(logged.details, { hookId: body.hook.id, name: 'Discord #lobby', room: 'general' })
    const text = (await as(app, admin).get('/api/panel/logs/activity?locale=en')).json().logs.slice(0, 2).map((entry: { text: string }) => entry.text)
    t.same(text, ['admin removed the incoming hook “Discord #lobby” of the room general', 'admin added the incoming hook “Discord #lobby” to the room general'])
    t.same(answer(await post(app, pathOf(body.url as string), { text: 'after removal' })), [404, error('NOT_FOUND')], 'its URL is dead at once')
  })

  t.test('who may manage them: panel.manage.webhooks, signed in, never with a token', async t => {
    t.same(answer(await as(app, member).get(url)), [403, error('NO_PERMISSION')])
    t.same(answer(await as(app, member).post(url, { room: 'general', name: 'x' })), [403, error('NO_PERMISSION')])
    const panelOnly = await account(app, admin, 'paneller', await roleWith(app, admin, 'panel-only', ['panel.access']))
    t.same(answer(await as(app, panelOnly).post(url, { room: 'general', name: 'x' })), [403, error('NO_PERMISSION')])
    t.same(answer(await as(app, panelOnly).get(url)), [403, error('NO_PERMISSION')])
    t.same(answer(await as(app, undefined).get(url)), [401, error('NOT_LOGGED_IN')])
    const token = await as(app, admin).post('/api/users/me/tokens', { name: 'script', permissions: ['panel.access', 'panel.manage.webhooks'] })
    const bearer = { authorization: `Bearer ${token.json().secret as string}` }
    t.same(answer(await app.inject({ method: 'POST', url, headers: bearer, payload: { room: 'general', name: 'x' } })), [403, error('NO_PERMISSION')])
    t.same(answer(await app.inject({ url, headers: bearer })), [403, error('NO_PERMISSION')])
    t.equal(await app.db('shoutbox_incoming_hooks').count({ n: '*' }).first().then(row => Number(row?.n)), 0, 'nothing was made')
  })

  t.test('bad hooks are refused and nothing is stored', async t => {
    for (const [body, status, code] of [
      [{ room: 'nowhere', name: 'x' }, 404, 'NOT_FOUND'],
      [{ room: 'general', name: '   ' }, 400, 'BAD_REQUEST'],
      [{ room: 'general', name: 'x'.repeat(65) }, 400, 'BAD_REQUEST'],
      [{ room: 'General!', name: 'x' }, 400, 'BAD_REQUEST'],
      [{ room: 'general' }, 400, 'BAD_REQUEST'],
      [{ name: 'x' }, 400, 'BAD_REQUEST']
    ] as const) {
      const refused = await as(app, admin).post(url, body)
      t.same([refused.statusCode, refused.json().error], [status, code], JSON.stringify(body))
    }
    t.same(answer(await as(app, hooksOnly).post(url, { room: 'staff', name: 'x' })), [404, error('NOT_FOUND')], 'a room the caller may not read is as none')
    const archived = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'old', name: 'Old' })
    await as(app, admin).delete(`/api/panel/shoutbox/rooms/${archived.json().room.id as number}`)
    t.same(answer(await as(app, admin).post(url, { room: 'old', name: 'x' })), [409, error('ROOM_ARCHIVED')])
    t.equal(await app.db('shoutbox_incoming_hooks').count({ n: '*' }).first().then(row => Number(row?.n)), 0)
  })

  t.test('Slack\'s and Discord\'s bodies post into the room as the hook: bot, via, the name the tool gave', async t => {
    const hook = await incomingHook(app, admin, 'general', 'Discord #lobby')
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
    const stream = connectSse(`${baseUrl}/api/shoutbox/stream?rooms=general`)
    t.teardown(() => stream.close())
    await stream.next(event => event.event === 'ready')

    const slack = await post(app, hook.path, { text: 'Hello from Slack', username: 'ada' })
    t.same(answer(slack), [200, { result: 'ok', shout: { id: slack.json().shout.id, room: 'general' } }])
    const discord = await post(app, `/api/hooks/incoming/${hook.id}/${hook.path.split('/').at(-1)!}`, { content: 'Hello from Discord', username: 'grace', embeds: [], tts: false })
    t.equal(discord.statusCode, 200, 'the declared path answers too, and unknown fields are ignored')
    const nameless = await post(app, hook.path, { content: 'no name given' })
    t.equal(nameless.statusCode, 200)

    const shouts = (await latest(app, undefined)).slice(0, 3)
    t.same(shouts.map(shout => [shout.message, shout.username, shout.bot, shout.via, shout.room]), [
      ['no name given', 'Discord #lobby', true, 'Discord #lobby', 'general'],
      ['Hello from Discord', 'grace', true, 'Discord #lobby', 'general'],
      ['Hello from Slack', 'ada', true, 'Discord #lobby', 'general']
    ])
    const event = await stream.next(each => each.event === 'shout-created' && JSON.parse(each.data).message === 'Hello from Slack')
    t.has(JSON.parse(event.data), { username: 'ada', bot: true, via: 'Discord #lobby', room: 'general' }, 'the stream says so too')
    t.has((await as(app, undefined).get(`/api/shoutbox/shouts/${slack.json().shout.id as number}`)).json().shout, { bot: true, via: 'Discord #lobby' }, 'and the permalink')
    t.same(Object.keys((await as(app, undefined).get('/api/shoutbox/list')).json().shouts[0]).sort(), ['date', 'id', 'message', 'username'], 'the seed\'s list keeps its four fields')
    t.equal(await app.db('activity_logs').where({ type: 'CREATED_SHOUT' }).count({ n: '*' }).first().then(row => Number(row?.n)), 0, 'a hook\'s shout is not logged as staff\'s')
  })

  t.test('the message rules, the watched words (on the text and the name) and the room\'s rules apply', async t => {
    const hook = await incomingHook(app, admin, 'general', 'rules')
    await as(app, admin).put('/api/panel/shoutbox/config', { maxMessageLength: 20 })
    t.same(answer(await post(app, hook.path, { text: 'x'.repeat(21) })), [400, error('MESSAGE_TOO_LONG', { maxMessageLength: 20 })])
    t.equal((await post(app, hook.path, { text: '   ' })).json().error, 'BAD_REQUEST')
    t.same((await post(app, hook.path, { username: 'ada' })).json().bodyValidationError, 'body must hold `text` (Slack) or `content` (Discord), a string')
    t.equal((await post(app, hook.path, { text: 'hi', username: 'x'.repeat(81) })).statusCode, 400)
    t.equal((await post(app, hook.path, { content: null, text: 'a null is as absent', username: null })).statusCode, 200)
    t.has((await latest(app, undefined))[0], { message: 'a null is as absent', username: 'rules' })
    await as(app, admin).put('/api/panel/shoutbox/config', { maxMessageLength: 500 })
    for (const [pattern, action] of [['casino', 'block'], ['darn', 'censor'], ['moneyback', 'hold']]) {
      t.equal((await as(app, admin).post('/api/panel/shoutbox/words', { pattern, action })).statusCode, 200)
    }
    t.same(answer(await post(app, hook.path, { content: 'best CASINO here' })), [400, error('WATCHED_WORD')])
    t.same(answer(await post(app, hook.path, { content: 'hello', username: 'casino king' })), [400, error('WATCHED_WORD')], 'the name too')
    const censored = await post(app, hook.path, { content: 'darn it', username: 'darn bot' })
    t.equal(censored.statusCode, 200)
    t.same((await latest(app, undefined)).slice(0, 1).map(shout => [shout.message, shout.username]), [['**** it', '**** bot']])
    const held = await post(app, hook.path, { content: 'moneyback guaranteed' })
    t.same(held.json().shout.held, true)
    t.notOk((await latest(app, undefined)).some(shout => shout.message === 'moneyback guaranteed'), 'held: off the board')
    const review = (await as(app, admin).get('/api/panel/shoutbox/review')).json().items as Array<{ shout: { id: number, message: string } }>
    t.ok(review.some(item => item.shout.message === 'moneyback guaranteed'), 'in the review queue')
    t.equal((await as(app, admin).post(`/api/panel/shoutbox/review/${held.json().shout.id as number}`, { action: 'approve' })).statusCode, 200)
    t.has((await latest(app, undefined)).find(shout => shout.message === 'moneyback guaranteed'), { bot: true, via: 'rules', username: 'rules' }, 'approved, it is the hook\'s')
    await app.db('shoutbox_watched_words').delete()
    await as(app, admin).post('/api/panel/shoutbox/words', { pattern: 'zzzz', action: 'block' }) // tells every process the list changed

    const slow = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'slow', name: 'Slow', slowModeSeconds: 600 })
    const slowHook = await incomingHook(app, admin, 'slow', 'slow hook')
    t.equal((await post(app, slowHook.path, { text: 'one' })).statusCode, 200)
    const again = await post(app, slowHook.path, { text: 'two' })
    t.same(answer(again), [429, error('TOO_MANY_REQUESTS')], 'the room\'s slow mode holds for a hook')
    t.ok(Number(again.headers['retry-after']) > 500)
    await as(app, admin).delete(`/api/panel/shoutbox/rooms/${slow.json().room.id as number}`)
    t.same(answer(await post(app, slowHook.path, { text: 'three' })), [409, error('ROOM_ARCHIVED')], 'an archived room is read-only')
  })

  t.test('attack: guessing URLs — a wrong secret, an unknown id and a removed hook get one answer', async t => {
    const hook = await incomingHook(app, admin, 'general', 'guessed')
    const removed = await incomingHook(app, admin, 'general', 'removed')
    await as(app, admin).delete(`${url}/${removed.id}`)
    const secret = hook.path.split('/').at(-1)!
    const wrong = [...secret].reverse().join('')
    const answers = []
    for (const path of [
      `/hooks/incoming/${hook.id}/${wrong}`,
      `/hooks/incoming/${hook.id}/${secret.slice(0, -1)}`,
      `/hooks/incoming/${hook.id}/x`,
      `/hooks/incoming/999999/${secret}`,
      `/hooks/incoming/abc/${secret}`,
      `/hooks/incoming/0/${secret}`,
      `/hooks/incoming/99999999999999999999/${secret}`,
      removed.path
    ]) {
      const response = await post(app, path, { text: 'guess' })
      answers.push([response.statusCode, response.body, response.headers['content-type']])
    }
    t.same(new Set(answers.map(each => JSON.stringify(each))).size, 1, 'the same status, body and type for each')
    t.same(answers[0], [404, JSON.stringify(error('NOT_FOUND')), 'application/json; charset=utf-8'])
    t.same(answer(await app.inject({ method: 'POST', url: '/hooks/incoming/nothing/here/at/all', payload: { text: 'x' } })), [404, error('NOT_FOUND')], 'as for no address at all')
    t.notOk((await latest(app, admin)).some(shout => shout.message === 'guess'), 'nothing was posted')
    t.equal((await post(app, hook.path, { text: 'the right one' })).statusCode, 200)
  })

  t.test('attack: flooding a hook — 30 a minute, counted across processes', async t => {
    // Two processes on PostgreSQL; the embedded database has one process.
    const other = DB_KIND === 'postgres' ? await build(t, { ...QUICK, db }) : app
    const hook = await incomingHook(app, admin, 'general', 'flooded')
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 === 0 ? app : other, hook.path, { text: `flood ${i}` })))
    const statuses = outcomes.map(response => response.statusCode)
    t.equal(statuses.filter(status => status === 200).length, 30, '30 went, through either process')
    t.equal(statuses.filter(status => status === 429).length, 10)
    const refused = outcomes.find(response => response.statusCode === 429)!
    t.same(refused.json(), error('TOO_MANY_REQUESTS'))
    t.ok(Number(refused.headers['retry-after']) >= 1 && Number(refused.headers['retry-after']) <= 60, 'Retry-After says when a place frees')
    const stored = await app.db('shoutbox_shouts').where({ via: 'flooded' }).count({ n: '*' }).first()
    t.equal(Number(stored?.n), 30)
    const second = await incomingHook(app, admin, 'general', 'another')
    t.equal((await post(other, second.path, { text: 'another hook has its own count' })).statusCode, 200)
  })

  t.test('attack: markup in a payload is kept as text, never HTML', async t => {
    const hook = await incomingHook(app, admin, 'general', 'markup')
    const nasty = '<script>alert(1)</script> <img src=x onerror=alert(2)> **bold** [a](javascript:alert(3)) @everyone'
    t.equal((await post(app, hook.path, { content: nasty, username: '<b>mallory</b>' })).statusCode, 200)
    const [shout] = await latest(app, undefined)
    t.same([shout?.message, shout?.username], [nasty, '<b>mallory</b>'], 'stored and answered exactly as sent')
    t.equal((await post(app, hook.path, { text: 'a &lt;b&gt; &amp; <https://example.org/x|the docs> and <https://example.org>' })).statusCode, 200)
    t.equal((await latest(app, undefined))[0]?.message, 'a <b> & the docs (https://example.org/x) and https://example.org', 'Slack\'s escapes and links read back to text')
    const page = await app.inject({ url: `/shouts/${(await latest(app, undefined))[1]!.id as number}` })
    t.notMatch(page.body, '<script>alert(1)', 'no page carries it as HTML')
  })

  t.test('attack: a hook in a staff room posts there only, and only staff read it', async t => {
    const hook = await incomingHook(app, admin, 'staff', 'alerts')
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' }).catch(() => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`)
    const memberStream = connectSse(`${baseUrl}/api/shoutbox/stream`, { cookie: member })
    t.teardown(() => memberStream.close())
    await memberStream.next(event => event.event === 'ready')
    const posted = await post(app, hook.path, { text: 'server down, staff only', username: 'monitor' })
    t.same(posted.json().shout.room, 'staff')
    t.has((await latest(app, admin, 'staff'))[0], { message: 'server down, staff only', via: 'alerts' }, 'staff read it')
    for (const reader of [member, undefined, hooksOnly]) {
      t.same((await latest(app, reader, 'staff')), [], 'no one else: the room is as none')
      t.notOk((await latest(app, reader)).some(shout => shout.message === 'server down, staff only'), 'not in general')
      t.same(answer(await as(app, reader).get(`/api/shoutbox/shouts/${posted.json().shout.id as number}`)), [404, error('NOT_FOUND')])
      const found = (await as(app, reader).get('/api/shoutbox/archive?q=server')).json().shouts as Array<{ message: string }>
      t.notOk(found.some(shout => shout.message.includes('staff only')), 'nor in a search')
    }
    await as(app, member).post('/api/shoutbox', { message: 'a marker after it' })
    await memberStream.next(event => event.event === 'shout-created' && JSON.parse(event.data).message === 'a marker after it')
    t.notOk(memberStream.events.some(event => event.data.includes('staff only')), 'nor on a member\'s stream')
    t.same(answer(await as(app, hooksOnly).get(url)).slice(1).map(body => (body as { hooks: Array<{ room: string }> }).hooks.some(each => each.room === 'staff')), [false], 'a hook keeper who may not read the room does not see its hook')
    t.same(answer(await as(app, hooksOnly).delete(`${url}/${hook.id}`)), [404, error('NOT_FOUND')], 'nor remove it')
    const feed = (await as(app, hooksOnly).get('/api/panel/logs/activity?locale=en')).json().logs as Array<{ type: string, text: string, details: Record<string, unknown> }>
    const entry = feed.find(each => each.type === 'CREATED_INCOMING_HOOK' && each.text.includes('may not read'))
    t.ok(entry, 'the feed says only that a hook was added to a room they may not read')
    t.notMatch(JSON.stringify(entry), 'alerts')
  })
})

t.test('outgoing formats: slack and discord, signed the same way; shouts that came in through a hook are not sent to them', async t => {
  const app = await build(t, QUICK)
  const admin = await setUp(app)
  const member = await account(app, admin, 'mira')
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const slack = await receiver(t)
  const discord = await receiver(t)
  const plain = await receiver(t)
  const made: Record<string, { id: number, secret: string }> = {}
  for (const [name, target, format] of [['slack', slack, 'slack'], ['discord', discord, 'discord'], ['plain', plain, undefined]] as const) {
    const created = await as(app, admin).post('/api/panel/webhooks', { url: target.url, events: ['shout.created'], ...(format === undefined ? {} : { format }) })
    t.equal(created.statusCode, 200, name)
    t.equal(created.json().webhook.format, format ?? 'shoutbox', 'the format is answered, shoutbox by default')
    made[name] = { id: created.json().webhook.id, secret: created.json().secret }
  }

  t.test('a format other than shoutbox takes new shouts only; an unknown format is refused', async t => {
    const refused = await as(app, admin).post('/api/panel/webhooks', { url: slack.url, events: ['shout.created', 'report.created'], format: 'slack' })
    t.same(answer(refused), [400, error('BAD_REQUEST', { reason: 'a slack webhook takes only shout.created' })])
    t.equal((await as(app, admin).post('/api/panel/webhooks', { url: slack.url, events: ['shout.created'], format: 'teams' })).statusCode, 400)
    t.same(answer(await as(app, admin).put(`/api/panel/webhooks/${made.plain!.id}`, { events: ['shout.deleted'], format: 'discord' })), [400, error('BAD_REQUEST', { reason: 'a discord webhook takes only shout.created' })])
    t.equal((await as(app, admin).get('/api/panel/webhooks')).json().webhooks.length, 3, 'nothing was made or changed')
  })

  t.test('each receives its own body; markup stays text; mentions ping nobody', async t => {
    const message = 'Hi <!channel> & <@U123> **bold** @everyone <b>x</b>'
    t.equal((await as(app, member).post('/api/shoutbox', { message })).statusCode, 200)
    await eventually(() => slack.received.length + discord.received.length + plain.received.length, n => n >= 3)
    t.same(slack.received.map(each => each.body), [{ text: 'Hi &lt;!channel&gt; &amp; &lt;@U123&gt; **bold** @everyone &lt;b&gt;x&lt;/b&gt;', username: 'mira' }], 'Slack: its three escapes, so it shows the text as written')
    t.same(discord.received.map(each => each.body), [{ content: message, username: 'mira', allowed_mentions: { parse: [] } }], 'Discord: as written, mentioning nobody')
    t.has(plain.received[0]?.body, { event: 'shout.created', data: { message, username: 'mira', room: 'general' } })
    for (const [target, hook] of [[slack, made.slack!], [discord, made.discord!], [plain, made.plain!]] as const) {
      const got = target.received[0]!
      const [stamp, v1] = String(got.headers['shoutbox-signature']).split(',')
      const t0 = stamp!.slice(2)
      t.equal(v1, `v1=${createHmac('sha256', hook.secret).update(`${t0}.${got.raw}`).digest('hex')}`, 'signed as every delivery is')
      t.equal(got.headers['shoutbox-event'], 'shout.created')
    }
  })

  t.test('a shout that came in through an incoming hook goes to shoutbox-format hooks only: no loops', async t => {
    const before = { slack: slack.received.length, discord: discord.received.length, plain: plain.received.length }
    const hook = await as(app, admin).post('/api/panel/shoutbox/incoming', { room: 'general', name: 'bridge' })
    t.equal((await app.inject({ method: 'POST', url: pathOf(hook.json().url as string), payload: { text: 'came over the bridge', username: 'ada' } })).statusCode, 200)
    t.equal((await as(app, member).post('/api/shoutbox', { message: 'said here' })).statusCode, 200)
    await eventually(() => slack.received.length + discord.received.length + plain.received.length, n => n >= before.slack + before.discord + before.plain + 4)
    t.same(slack.received.slice(before.slack).map(each => each.body.text), ['said here'])
    t.same(discord.received.slice(before.discord).map(each => each.body.content), ['said here'])
    t.same(plain.received.slice(before.plain).map(each => [(each.body.data as Record<string, unknown>).message, (each.body.data as Record<string, unknown>).via]), [['came over the bridge', 'bridge'], ['said here', undefined]], 'the shoutbox format gets both, and says which came through a hook')
  })

  t.test('a ping reaches a chat channel as a message; a shout deleted before it was sent is not sent', async t => {
    const before = slack.received.length
    t.equal((await as(app, admin).post(`/api/panel/webhooks/${made.slack!.id}/ping`, {})).statusCode, 200)
    await eventually(() => slack.received.length, n => n > before)
    t.same(slack.received[before]?.body, { text: 'Shoutbox: a test message from the webhooks page.', username: 'Shoutbox' })
    // A delivery whose shout was deleted while it waited carries no text (`redact`): a chat channel has nothing to show.
    const sentBefore = discord.received.length
    await app.db('webhook_deliveries').insert({ hook_id: made.discord!.id, event: 'shout.created', data: JSON.stringify({ id: 1, deleted: true }), next_attempt_at: Date.now(), created_at: Date.now() })
    app.webhooks.sender.kick()
    const { value } = await eventually(() => app.db('webhook_deliveries').where({ hook_id: made.discord!.id }).orderBy('created_at', 'desc').first(), row => row?.status !== 'pending')
    t.same([value.status, value.response_code], ['delivered', null], 'done, with no answer to record')
    t.equal(discord.received.length, sentBefore, 'and nothing was sent')
  })

  t.test('a hook that names a room gets only that room\'s shouts (a channel bridged to one room)', async t => {
    const side = await receiver(t)
    t.equal((await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'side', name: 'Side' })).statusCode, 200)
    const created = await as(app, admin).post('/api/panel/webhooks', { url: side.url, events: ['shout.created'], format: 'discord', room: 'side' })
    t.equal(created.json().webhook.room, 'side')
    t.same(answer(await as(app, admin).post('/api/panel/webhooks', { url: side.url, events: ['shout.created'], room: 'Not A Slug' })).slice(0, 1), [400])
    const before = slack.received.length
    t.equal((await as(app, member).post('/api/shoutbox', { message: 'in general' })).statusCode, 200)
    t.equal((await as(app, member).post('/api/shoutbox/rooms/side/shouts', { message: 'in the side room' })).statusCode, 200)
    await eventually(() => slack.received.length, n => n >= before + 2)
    await eventually(() => side.received.length, n => n >= 1)
    t.same(side.received.map(each => each.body.content), ['in the side room'])
    t.same(slack.received.slice(before).map(each => each.body.text).sort(), ['in general', 'in the side room'], 'a hook that names none gets every room\'s')
  })
})
