import t from 'tap'
import { build, setUp, userWith, type App } from '../helpers/app.js'
import { connectSse } from '../helpers/sse.js'
import type { RoomShout, Shout, Tap } from '../helpers/types.js'

const shouts = async (app: App) => (await app.inject({ url: '/api/shoutbox/list' })).json().shouts as Array<Record<string, unknown>>
const logs = async (app: App) => app.db('activity_logs').where({ type: 'CREATED_SHOUT' }).orderBy('id')
const ok = { result: 'ok' }
/** A test name on one ASCII line, whatever the message holds (TAP is line-based). */
const label = (value: unknown): string => JSON.stringify(value).replace(/[^\x20-\x7e]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
const badRequest = (what: string) => ({ result: 'error', error: 'BAD_REQUEST', bodyValidationError: what })

/** A board with its admin, a moderator (granted MANAGE_SHOUTBOX) and a helper with panel access only. */
async function board (t: Tap) {
  const app = await build(t)
  const admin = await setUp(app)
  const moderator = await userWith(app, admin, 'moderator', ['panel.access', 'addon.shoutbox.manage.shoutbox'])
  const panelOnly = await userWith(app, admin, 'helper', ['panel.access'])
  const post = (cookie: string, payload: unknown, url = '/panel/api/shoutbox', contentType = 'application/json') => app.inject({
    method: 'POST', url, headers: { cookie, 'content-type': contentType },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })
  })
  return { app, admin, moderator, panelOnly, post }
}

/** Seed §4.2 and §7, CONTRACT §6: POST /api/panel/shoutbox. */
t.test('POST /api/panel/shoutbox', async t => {
  // The subtests share this board and count from what they find; each one that checks
  // something absolute publishes it first, or stages a board of its own.
  const { app, admin, moderator, panelOnly, post } = await board(t)

  t.test('rule 1: the panel path /panel/api/shoutbox is the registered /api/panel/shoutbox', async t => {
    const { app, admin, post } = await board(t)
    t.same((await post(admin, { message: 'via panel path' })).json(), ok)
    t.same((await post(admin, { message: 'via registered path' }, '/api/panel/shoutbox')).json(), ok)
    t.equal((await shouts(app)).length, 2)
  })

  t.test('rule 2: a missing body, a non-JSON body, or no string message → BAD_REQUEST before any logic', async t => {
    const before = (await shouts(app)).length
    const cases: Array<[unknown, string, string]> = [
      [undefined, 'application/json', 'body must be a JSON object, but the request has no body'],
      ['message=hi', 'application/x-www-form-urlencoded', 'body must be sent as application/json'],
      ['{"message": "hi"', 'application/json', 'body is not valid JSON'],
      [[{ message: 'hi' }], 'application/json', 'body must be object'],
      [{}, 'application/json', "body must have required property 'message'"],
      [{ message: null }, 'application/json', 'body/message must be string'],
      [{ message: 42 }, 'application/json', 'body/message must be string'],
      [{ message: ['hi'] }, 'application/json', 'body/message must be string'],
      [{ message: { text: 'hi' } }, 'application/json', 'body/message must be string']
    ]
    for (const [payload, type, what] of cases) {
      const response = await post(panelOnly, payload, undefined, type)
      t.same([response.statusCode, response.json()], [400, badRequest(what)], `${JSON.stringify(payload)} as ${type}`)
    }
    t.equal((await shouts(app)).length, before, 'nothing stored')
  })

  t.test('rule 3: the first step is the permission check: a panel role without MANAGE_SHOUTBOX → NO_PERMISSION, nothing stored', async t => {
    const before = (await shouts(app)).length
    const logsBefore = (await logs(app)).length
    const response = await post(panelOnly, { message: 'not allowed' })
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
    const blank = await post(panelOnly, { message: '   ' })
    t.same([blank.statusCode, blank.json()], [403, { result: 'error', error: 'NO_PERMISSION' }], 'permission before the blank check')
    t.equal((await shouts(app)).length, before)
    t.equal((await logs(app)).length, logsBefore)
  })

  t.test('a role granted the permission may publish; the admin role passes without it', async t => {
    t.same((await post(moderator, { message: 'from a moderator' })).json(), ok)
    const admins = await app.db('roles').where({ name: 'admin' }).first()
    t.same(admins.permissions, ['*'], 'admin holds no explicit MANAGE_SHOUTBOX')
    t.same((await post(admin, { message: 'from the admin' })).json(), ok)
  })

  t.test('rule 4: empty or only whitespace (Unicode too) → BAD_REQUEST, nothing stored', async t => {
    const before = (await shouts(app)).length
    // The second line: characters drawn as nothing (zero-width space, joiners, word joiner,
    // soft hyphen, Hangul filler, a variation selector), which a spammer sends for a shout
    // that shows nothing.
    for (const message of ['', ' ', '\t\n\r ', '\u00a0', '\u3000\u2003', '\u2028\u2029', '\ufeff',
      '\u200b', '\u200b\u200c\u200d\u2060', ' \u00ad ', '\u3164', '\ufe0f\u200b\n',
      '\u2800\u2800\u2800', '\ufff9', '\u{13430}', '\u{16fe4}', '\u{1d159}', '\u202e\u2066']) {
      const response = await post(moderator, { message })
      t.same([response.statusCode, response.json()], [400, badRequest('body/message must not be empty or only whitespace')], label(message))
    }
    t.equal((await shouts(app)).length, before)
    const family = await post(moderator, { message: '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}' })
    t.equal(family.statusCode, 200, 'joiners between visible characters are text: an emoji family is a shout')
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; charset=utf8', 'application/json; charset=US-ASCII']) {
      const declared = await post(moderator, { message: `declared as ${contentType}` }, undefined, contentType)
      t.equal(declared.statusCode, 200, `${contentType}: UTF-8 (or ASCII, a part of it) is read as declared`)
    }
  })

  t.test('text PostgreSQL cannot store (U+0000, unpaired surrogates) → BAD_REQUEST, never a 500', async t => {
    const before = (await shouts(app)).length
    for (const raw of ['"a\\u0000b"', '"\\ud800"', '"x\\udc00y"', '"\\udbff\\u0041"']) {
      const response = await post(moderator, `{"message":${raw}}`)
      t.same([response.statusCode, response.json()], [400, badRequest('body/message must not contain U+0000 or an unpaired surrogate')], raw)
    }
    t.equal((await shouts(app)).length, before)
  })

  t.test('longer than maxMessageLength code points → MESSAGE_TOO_LONG 400; exactly the limit is fine', async t => {
    const before = (await shouts(app)).length
    const tooLong = await post(moderator, { message: 'x'.repeat(501) })
    t.same([tooLong.statusCode, tooLong.json()], [400, { result: 'error', error: 'MESSAGE_TOO_LONG', maxMessageLength: 500 }])
    t.equal((await shouts(app)).length, before)
    const emoji = '😀'.repeat(500) // 1,000 UTF-16 units, 500 code points
    t.same((await post(moderator, { message: emoji })).json(), ok)
    t.equal((await shouts(app))[0]!.message, emoji)
  })

  t.test('rule 5: stored exactly as sent, with the session\'s username; body username and id are ignored', async t => {
    const message = '  <b>bold</b> \'; DROP TABLE shoutbox_shouts; -- \u{1F600} '
    const before = Date.now()
    const response = await post(moderator, { message, username: 'mallory', id: 999, date: 1 })
    t.equal(response.statusCode, 200)
    t.equal(response.body, '{"result":"ok"}', 'exactly {"result":"ok"}, nothing else')
    const [latest] = await shouts(app)
    t.equal(latest!.message, message)
    t.equal(latest!.username, 'moderator')
    t.not(latest!.id, 999)
    t.ok((latest!.date as number) >= before)
  })

  t.test('rule 5: the CREATED_SHOUT entry: user id, username, addon id, message, room', async t => {
    await post(moderator, { message: '  <b>bold</b> \'; DROP TABLE shoutbox_shouts; -- \u{1F600} ' })
    const last = (await logs(app)).at(-1)
    t.match(last, { type: 'CREATED_SHOUT', user_id: 2, username: 'moderator', addon_id: 'shoutbox' })
    t.same(last.details, { message: '  <b>bold</b> \'; DROP TABLE shoutbox_shouts; -- \u{1F600} ', room: 'general' })
    const feed = await app.inject({ url: '/api/panel/logs/activity', headers: { cookie: admin } })
    t.match(feed.json().logs[0], { type: 'CREATED_SHOUT', userId: 2, username: 'moderator', addonId: 'shoutbox', text: `moderator posted a shout: ${last.details.message}` })
    const tr = await app.inject({ url: '/api/panel/logs/activity?locale=tr', headers: { cookie: admin } })
    t.equal(tr.json().logs[0].text, `moderator bir duyuru paylaştı: ${last.details.message}`)
  })

  t.test('every shout has its entry, and every entry its shout', async t => {
    // Something to compare, published and refused, even when this runs alone.
    await post(moderator, { message: 'from a moderator' })
    await post(admin, { message: 'from the admin' })
    await post(panelOnly, { message: 'not allowed' })
    await post(moderator, { message: '   ' })
    const all = await shouts(app)
    const entries = await logs(app)
    t.equal(all.length, entries.length)
    t.same(all.map(s => s.message).reverse(), entries.map((e: { details: { message: string } }) => e.details.message))
  })

  t.test('100 concurrent publishes all land with unique ids and 100 log entries', async t => {
    const before = (await shouts(app)).length
    const beforeLogs = (await logs(app)).length
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => post(moderator, { message: `burst ${i}` })))
    t.same(answers.map(a => a.statusCode), Array(100).fill(200))
    const all = await shouts(app)
    t.equal(all.length, before + 100)
    t.equal(new Set(all.map(s => s.id)).size, all.length, 'unique ids')
    t.equal((await logs(app)).length, beforeLogs + 100)
  })
})

t.test('a failure between the shout insert and the log insert leaves neither row', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  await app.db.raw(`
    create function refuse_created_shout() returns trigger language plpgsql as $$
    begin raise exception 'injected failure'; end $$`)
  await app.db.raw(`
    create trigger refuse_created_shout before insert on activity_logs
    for each row when (new.type = 'CREATED_SHOUT') execute function refuse_created_shout()`)
  const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'doomed' } })
  t.same([response.statusCode, response.json()], [500, { result: 'error', error: 'INTERNAL_SERVER_ERROR' }])
  t.same(await shouts(app), [], 'no shout')
  t.same(await logs(app), [], 'no entry')
  await app.db.raw('drop trigger refuse_created_shout on activity_logs')
  t.same((await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'fine' } })).json(), ok)
  t.same((await shouts(app)).map(s => s.message), ['fine'])
})

/** A board listening on a port: its admin's publish, and its address. */
async function listeningBoard (t: Tap) {
  const app = await build(t)
  const cookie = await setUp(app)
  const post = (message: string) => app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, post, address }
}

/** Publishes arriving together share a transaction (src/shoutbox/publisher.ts). */
t.test('publishes that arrive together', async t => {
  // The shared board is for 'one that cannot be stored', which counts from what it
  // finds; the other compares the whole list and log, so it has a board of its own.
  const { app, post } = await listeningBoard(t)

  t.test('each is stored with its own entry and its own stream event, in the same order', async t => {
    const { app, post, address } = await listeningBoard(t)
    const client = connectSse(`${address}/api/shoutbox/stream`)
    t.teardown(() => client.close())
    await client.next(e => e.event === 'ready')
    const messages = Array.from({ length: 50 }, (_, i) => `together ${i}`)
    t.same((await Promise.all(messages.map(post))).map(a => a.statusCode), Array(50).fill(200))
    const stored = ((await app.inject({ url: '/api/shoutbox/list' })).json().shouts as Shout[]).reverse()
    t.same(stored.map(s => s.message).sort(), [...messages].sort(), 'every one stored, once')
    const entries = await logs(app)
    t.same(entries.map((e: { details: { message: string } }) => e.details.message), stored.map(s => s.message), 'an entry each, in the order of the ids')
    await client.next(e => e.event === 'shout-created' && JSON.parse(e.data).message === stored.at(-1)!.message)
    const streamed = client.events.filter(e => e.event === 'shout-created').map(e => JSON.parse(e.data) as RoomShout)
    t.same(streamed.map(s => s.id), stored.map(s => s.id), 'a stream event each, in the order of the ids')
  })

  t.test('one that cannot be stored fails alone; the others land, each with its entry', async t => {
    await app.db.raw(`
      create function refuse_doomed() returns trigger language plpgsql as $$
      begin if new.details->>'message' = 'doomed' then raise exception 'injected failure'; end if; return new; end $$`)
    await app.db.raw('create trigger refuse_doomed before insert on activity_logs for each row execute function refuse_doomed()')
    t.teardown(() => app.db.raw('drop trigger if exists refuse_doomed on activity_logs'))
    const shoutsBefore = (await shouts(app)).length
    const entriesBefore = (await logs(app)).length
    const messages = Array.from({ length: 30 }, (_, i) => i === 15 ? 'doomed' : `bystander ${i}`)
    const answers = await Promise.all(messages.map(post))
    t.same(answers.map(a => a.statusCode), messages.map(m => m === 'doomed' ? 500 : 200))
    const landed = messages.filter(m => m !== 'doomed').sort()
    const all = await shouts(app)
    t.same(all.slice(0, all.length - shoutsBefore).map(s => s.message as string).sort(), landed, 'the others are stored')
    const entries = (await logs(app)).slice(entriesBefore).map((e: { details: { message: string } }) => e.details.message)
    t.same(entries.sort(), landed, 'each with its entry')
  })
})
