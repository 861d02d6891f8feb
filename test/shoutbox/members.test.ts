import t, { type Test } from 'tap'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { account, memberRoleId } from '../helpers/identity.js'
import { ANSWERED_KEYS, DEFAULT_REACTIONS, MODERATION_DEFAULTS, withoutReactions } from '../helpers/shouts.js'
import { connectSse } from '../helpers/sse.js'
import type { FullShout as Shout, RoomShout, Shout as ListedShout } from '../helpers/types.js'

/** CONTRACT §12: members post in the shoutbox, edit and delete their own shouts, within the flood rules. */

const error = (code: string, extras: Record<string, unknown> = {}) => ({ result: 'error', error: code, ...extras })
const badRequest = (what: string) => error('BAD_REQUEST', { bodyValidationError: what })
/** A Retry-After header holding whole seconds from `least` to `most`. */
const within = (header: unknown, least: number, most: number): boolean =>
  typeof header === 'string' && /^\d+$/.test(header) && Number(header) >= least && Number(header) <= most

/** The shout as the seed's list shows it: its four fields alone, without its room, replyTo and reactions. */
const listed = ({ id, message, username, date }: Shout): ListedShout => ({ id, message, username, date })


function client (app: App) {
  return {
    post: (cookie: string, payload: unknown) => app.inject({ method: 'POST', url: '/api/shoutbox', headers: { cookie }, payload: payload as Record<string, unknown> }),
    edit: (cookie: string, id: number | string, payload: unknown) => app.inject({ method: 'PUT', url: `/api/shoutbox/${id}`, headers: { cookie }, payload: payload as Record<string, unknown> }),
    remove: (cookie: string, id: number | string) => app.inject({ method: 'DELETE', url: `/api/shoutbox/${id}`, headers: { cookie } }),
    list: async (): Promise<ListedShout[]> => (await app.inject({ url: '/api/shoutbox/list' })).json().shouts,
    settings: (cookie: string, payload: Record<string, unknown>) => app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie }, payload }),
    stored: async (): Promise<number> => Number((await app.db('shoutbox_shouts').count<Array<{ count: string }>>({ count: '*' }))[0]!.count),
    logged: async (type: string): Promise<number> => Number((await app.db('activity_logs').where({ type }).count<Array<{ count: string }>>({ count: '*' }))[0]!.count)
  }
}

/**
 * The shout the answer carries, after checking the answer is exactly `{result, shout}` with that shout, its
 * seven fields in order: the list's four, its room (the default room unless `expected` names another),
 * replyTo and reactions (none of either unless `expected` names them).
 */
function expectShout (t: Test, response: Awaited<ReturnType<App['inject']>>, expected: Pick<Shout, 'message' | 'username'> & Partial<Shout> & { editedSince?: number }, before = 0): Shout {
  const body = response.json()
  const shout = body.shout as Shout & { edited?: number }
  // An edited shout says when, last, after its other fields.
  const edited = expected.editedSince === undefined ? {} : { edited: shout?.edited }
  if (expected.editedSince !== undefined) t.ok(Number.isInteger(shout?.edited) && shout.edited! >= expected.editedSince && shout.edited! <= Date.now(), 'edited: when')
  t.same([response.statusCode, body], [200, {
    result: 'ok',
    shout: {
      id: expected.id ?? shout?.id,
      message: expected.message,
      username: expected.username,
      date: expected.date ?? shout?.date,
      room: expected.room ?? 'general',
      replyTo: expected.replyTo ?? null,
      reactions: expected.reactions ?? [],
      ...edited
    }
  }])
  t.same(Object.keys(shout ?? {}), [...ANSWERED_KEYS, ...Object.keys(edited)], 'the shout\'s seven fields: its room, replyTo and reactions last (and `edited`, once edited)')
  t.ok(Number.isInteger(shout.id) && shout.id > 0, 'an id from the database')
  if (expected.date === undefined) t.ok(shout.date >= before && shout.date <= Date.now(), 'dated when stored')
  return shout
}

/** Moves a member's flood-control clock back, as if `ms` had passed. */
async function timePasses (app: App, username: string, ms: number): Promise<void> {
  const user = await app.db('users').where({ username }).first<{ id: number }>('id')
  const row = await app.db('shoutbox_flood_control').where({ author_id: user.id }).first<{ recent: number[], last_posted_at: number }>()
  await app.db('shoutbox_flood_control').where({ author_id: user.id })
    .update({ recent: JSON.stringify(row.recent.map(at => at - ms)), last_posted_at: Number(row.last_posted_at) - ms })
}

t.test('POST /api/shoutbox: a member posts', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  const ayse = await account(app, admin, 'ayse')
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = connectSse(`${address}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')

  t.test('the member role holds POST_SHOUTS and UPLOAD_PICTURES from setup on, granted by the manifest\'s "default": true', async t => {
    const me = (await app.inject({ url: '/api/auth/me', headers: { cookie: ayse } })).json()
    t.same(me, { result: 'ok', user: { id: 2, username: 'ayse', role: { id: 2, name: 'member' }, permissions: ['addon.shoutbox.post', 'addon.shoutbox.upload'] } })
  })

  t.test('signed out → NOT_LOGGED_IN, before the body is read', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/shoutbox', payload: 'not json', headers: { 'content-type': 'application/json' } })
    t.same([response.statusCode, response.json()], [401, error('NOT_LOGGED_IN')])
  })

  t.test('the answer is the stored shout; the username is the session\'s, a forged one in the body is ignored', async t => {
    const before = Date.now()
    const logged = await api.logged('CREATED_SHOUT')
    const shout = expectShout(t, await api.post(ayse, { message: 'Hello <b>everyone</b>', username: 'admin', date: 1, id: 99 }), { message: 'Hello <b>everyone</b>', username: 'ayse' }, before)
    t.same(await api.list(), [listed(shout)], 'the list shows it, with its four fields')
    t.equal(await api.logged('CREATED_SHOUT'), logged, 'no activity-log entry: the feed is the staff\'s record')
    const created = await stream.next(e => e.event === 'shout-created')
    t.same(JSON.parse(created.data), withoutReactions(shout), 'a shout-created stream event (the answer\'s shout but for its reactions)')
    const author = await app.db('shoutbox_shouts').where({ id: shout.id }).first<{ author_id: number }>('author_id')
    t.equal(author.author_id, 2, 'the author\'s id is kept with it')
  })

  t.test('the same message rules as the panel\'s publish; nothing stored', async t => {
    await api.settings(admin, { minSecondsBetweenShouts: 0 })
    const before = await api.stored()
    const cases: Array<[unknown, number, Record<string, unknown>]> = [
      [{ message: '' }, 400, badRequest('body/message must not be empty or only whitespace')],
      [{ message: ' \u3000\n' }, 400, badRequest('body/message must not be empty or only whitespace')],
      [{ message: 'a\u0000b' }, 400, badRequest('body/message must not contain U+0000 or an unpaired surrogate')],
      [{ message: 'x'.repeat(501) }, 400, error('MESSAGE_TOO_LONG', { maxMessageLength: 500 })],
      [{ message: 42 }, 400, badRequest('body/message must be string')],
      [{}, 400, badRequest("body must have required property 'message'")]
    ]
    for (const [payload, status, body] of cases) {
      const response = await api.post(ayse, payload)
      t.same([response.statusCode, response.json()], [status, body], JSON.stringify(payload).slice(0, 40))
    }
    expectShout(t, await api.post(ayse, { message: '😀'.repeat(500) }), { message: '😀'.repeat(500), username: 'ayse' })
    t.equal(await api.stored(), before + 1, 'only the valid one')
    await api.settings(admin, { minSecondsBetweenShouts: 3 })
  })

  t.test('a member whose role lost POST_SHOUTS is refused, whatever the body', async t => {
    const memberRole = await memberRoleId(app, admin)
    const taken = await app.inject({ method: 'PUT', url: `/api/panel/roles/${memberRole}`, headers: { cookie: admin }, payload: { name: 'member', permissions: [] } })
    t.same(taken.json().role, { id: memberRole, name: 'member', permissions: [], builtin: true }, 'the site took it away')
    const before = await api.stored()
    for (const payload of [{ message: 'still here?' }, { message: '' }]) {
      const response = await api.post(ayse, payload)
      t.same([response.statusCode, response.json()], [403, error('NO_PERMISSION')], JSON.stringify(payload))
    }
    t.equal(await api.stored(), before)
    await app.inject({ method: 'PUT', url: `/api/panel/roles/${memberRole}`, headers: { cookie: admin }, payload: { name: 'member', permissions: ['addon.shoutbox.post'] } })
  })

  t.test('a role without POST_SHOUTS (panel staff without it too) → NO_PERMISSION', async t => {
    const role = await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'readers', permissions: [] } })
    const reader = await account(app, admin, 'reader', role.json().role.id)
    const response = await api.post(reader, { message: 'may I?' })
    t.same([response.statusCode, response.json()], [403, error('NO_PERMISSION')])
  })
})

t.test('flood control', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  t.same((await app.inject({ url: '/api/panel/shoutbox/config', headers: { cookie: admin } })).json(), {
    result: 'ok', maxShouts: null, maxMessageLength: 500, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300, maxPinned: 3, keepDays: null, reactions: DEFAULT_REACTIONS, ...MODERATION_DEFAULTS
  }, 'the defaults')
  // The flood rules alone: the board's own silence after repeated refusals is review.test.ts's.
  await api.settings(admin, { autoMuteAfter: 0 })

  t.test('minSecondsBetweenShouts: the next post too soon → TOO_MANY_REQUESTS with Retry-After', async t => {
    const can = await account(app, admin, 'can')
    expectShout(t, await api.post(can, { message: 'one' }), { message: 'one', username: 'can' })
    const second = await api.post(can, { message: 'two' })
    t.same([second.statusCode, second.json()], [429, error('TOO_MANY_REQUESTS')])
    t.ok(['1', '2', '3'].includes(second.headers['retry-after'] as string), `Retry-After: ${second.headers['retry-after']}`)
    await timePasses(app, 'can', 3000)
    expectShout(t, await api.post(can, { message: 'two' }), { message: 'two', username: 'can' })
  })

  t.test('the same text as the author\'s previous shout within 60 s → DUPLICATE_SHOUT; after a minute it is fine', async t => {
    const deniz = await account(app, admin, 'deniz')
    expectShout(t, await api.post(deniz, { message: 'gm' }), { message: 'gm', username: 'deniz' })
    await timePasses(app, 'deniz', 5000)
    const again = await api.post(deniz, { message: 'gm' })
    t.same([again.statusCode, again.json()], [409, error('DUPLICATE_SHOUT')])
    expectShout(t, await api.post(deniz, { message: 'gm!' }), { message: 'gm!', username: 'deniz' }, 0)
    await timePasses(app, 'deniz', 61_000)
    expectShout(t, await api.post(deniz, { message: 'gm' }), { message: 'gm', username: 'deniz' })
  })

  t.test('a burst of 20 posts at once from one member: exactly the allowed number stored', async t => {
    await api.settings(admin, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 10 })
    const emre = await account(app, admin, 'emre')
    const before = await api.stored()
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => api.post(emre, { message: `burst ${i}` })))
    const ok = answers.filter(a => a.statusCode === 200)
    const refused = answers.filter(a => a.statusCode === 429)
    t.equal(ok.length, 10, 'maxShoutsPerMinute were admitted')
    t.equal(refused.length, 10, 'the rest refused')
    for (const answer of refused) {
      t.same(answer.json(), error('TOO_MANY_REQUESTS'))
      // The minute began at the first of the burst: a slow machine may have spent seconds on it.
      t.ok(within(answer.headers['retry-after'], 50, 60), `wait until the oldest leaves the minute: ${answer.headers['retry-after']}`)
    }
    t.equal(await api.stored(), before + 10, 'exactly 10 stored')
    t.equal((await api.list()).filter(s => s.username === 'emre').length, 10)

    // Deleting one's shouts does not give the allowance back.
    for (const answer of ok.slice(0, 3)) await api.remove(emre, answer.json().shout.id)
    const after = await api.post(emre, { message: 'after deleting' })
    t.same([after.statusCode, after.json()], [429, error('TOO_MANY_REQUESTS')])
    await timePasses(app, 'emre', 60_001)
    expectShout(t, await api.post(emre, { message: 'a minute later' }), { message: 'a minute later', username: 'emre' })
  })

  t.test('with the default of 3 s, 20 posts at once store exactly one', async t => {
    await api.settings(admin, { minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10 })
    const fatma = await account(app, admin, 'fatma')
    const before = await api.stored()
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => api.post(fatma, { message: `hi ${i}` })))
    t.same(answers.map(a => a.statusCode).sort(), [200, ...Array(19).fill(429)])
    t.equal(await api.stored(), before + 1)
  })

  t.test('a gap longer than a minute is kept for its whole length', async t => {
    await api.settings(admin, { minSecondsBetweenShouts: 120 })
    const gul = await account(app, admin, 'gul')
    expectShout(t, await api.post(gul, { message: 'first' }), { message: 'first', username: 'gul' })
    await timePasses(app, 'gul', 61_000)
    const soon = await api.post(gul, { message: 'second' })
    t.same([soon.statusCode, soon.json()], [429, error('TOO_MANY_REQUESTS')])
    t.ok(within(soon.headers['retry-after'], 50, 59), `what is left of the 120 s: ${soon.headers['retry-after']}`)
    await api.settings(admin, { minSecondsBetweenShouts: 3 })
  })

  t.test('holders of MANAGE_SHOUTBOX are exempt', async t => {
    const role = await app.inject({
      method: 'POST', url: '/api/panel/roles', headers: { cookie: admin },
      payload: { name: 'moderators', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox', 'addon.shoutbox.post'] }
    })
    const mod = await account(app, admin, 'mod', role.json().role.id)
    const answers = await Promise.all(Array.from({ length: 15 }, () => api.post(mod, { message: 'announcement' })))
    t.same(answers.map(a => a.statusCode), Array(15).fill(200), 'no gap, no per-minute limit, no duplicate rule')
    const adminAnswers = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post(admin, { message: `admin ${i}` })))
    t.same(adminAnswers.map(a => a.statusCode), Array(12).fill(200), 'the admin role too')
  })

  t.test('the settings: ranges, logged, applied on the next post', async t => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ minSecondsBetweenShouts: -1 }, 'body/minSecondsBetweenShouts must be >= 0'],
      [{ minSecondsBetweenShouts: 3601 }, 'body/minSecondsBetweenShouts must be <= 3600'],
      [{ minSecondsBetweenShouts: 1.5 }, 'body/minSecondsBetweenShouts must be integer'],
      [{ maxShoutsPerMinute: 0 }, 'body/maxShoutsPerMinute must be >= 1'],
      [{ maxShoutsPerMinute: 601 }, 'body/maxShoutsPerMinute must be <= 600'],
      [{ editWindowSeconds: -1 }, 'body/editWindowSeconds must be >= 0'],
      [{ editWindowSeconds: 86_401 }, 'body/editWindowSeconds must be <= 86400'],
      [{ editWindowSeconds: null }, 'body/editWindowSeconds must be integer']
    ]
    for (const [payload, what] of cases) {
      const response = await api.settings(admin, payload)
      t.same([response.statusCode, response.json()], [400, badRequest(what)], JSON.stringify(payload))
    }
    const changed = await api.settings(admin, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 2, editWindowSeconds: 60 })
    t.same([changed.statusCode, changed.json()], [200, {
      result: 'ok', maxShouts: null, maxMessageLength: 500, minSecondsBetweenShouts: 0, maxShoutsPerMinute: 2, editWindowSeconds: 60, maxPinned: 3, keepDays: null, reactions: DEFAULT_REACTIONS, ...MODERATION_DEFAULTS, autoMuteAfter: 0
    }])
    const entry = await app.db('activity_logs').where({ type: 'UPDATED_SHOUTBOX_SETTINGS' }).orderBy('id', 'desc').first<{ details: unknown }>('details')
    t.same(entry.details, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 2, editWindowSeconds: 60 })
    const hale = await account(app, admin, 'hale')
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => api.post(hale, { message: `m${i}` })))
    t.equal(answers.filter(a => a.statusCode === 200).length, 2, 'the new limit holds at once')
  })
})

t.test('own shouts: edit within the window, delete any time; never someone else\'s', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  await api.settings(admin, { minSecondsBetweenShouts: 0 })
  const ayse = await account(app, admin, 'ayse')
  const bora = await account(app, admin, 'bora')
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = connectSse(`${address}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const mine = expectShout(t, await api.post(ayse, { message: 'helo wrld' }), { message: 'helo wrld', username: 'ayse' })
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message: 'from the staff' } })
  const staff = (await api.list())[0]!

  t.test('the author edits it: same id, username and date, the new text; list and stream follow', async t => {
    const edited = expectShout(t, await api.edit(ayse, mine.id, { message: 'hello world', username: 'bora' }), { id: mine.id, message: 'hello world', username: 'ayse', date: mine.date, editedSince: mine.date })
    t.same((await api.list()).find(s => s.id === mine.id), listed(edited), 'the list shows the new text, still four fields')
    const event = await stream.next(e => e.event === 'shout-edited')
    t.same(JSON.parse(event.data), withoutReactions(edited), 'a shout-edited event: {id, message, username, date, room, replyTo}')
    t.equal(await api.logged('EDITED_SHOUT'), 0, 'not logged')
  })

  t.test('another member editing or deleting it → NO_PERMISSION, nothing changes', async t => {
    const edit = await api.edit(bora, mine.id, { message: 'pwned' })
    t.same([edit.statusCode, edit.json()], [403, error('NO_PERMISSION')])
    const blankEdit = await api.edit(bora, mine.id, { message: '' })
    t.same([blankEdit.statusCode, blankEdit.json()], [403, error('NO_PERMISSION')], 'refused before the message rules')
    const remove = await api.remove(bora, mine.id)
    t.same([remove.statusCode, remove.json()], [403, error('NO_PERMISSION')])
    t.equal((await api.list()).find(s => s.id === mine.id)?.message, 'hello world')
  })

  t.test('a staff shout is not a member\'s to change, nor is one stored before authors were kept', async t => {
    for (const answer of [await api.edit(ayse, staff.id, { message: 'x' }), await api.remove(ayse, staff.id)]) {
      t.same([answer.statusCode, answer.json()], [403, error('NO_PERMISSION')])
    }
    const [old] = await app.db('shoutbox_shouts').insert({ message: 'from long ago', username: 'ayse', date: Date.now() }).returning<Array<{ id: number }>>('id')
    const answer = await api.edit(ayse, old!.id, { message: 'mine?' })
    t.same([answer.statusCode, answer.json()], [403, error('NO_PERMISSION')], 'the same username is not the same author')
  })

  t.test('an unknown id → NOT_FOUND; a path that is not an id → no such route', async t => {
    for (const answer of [await api.edit(ayse, 999999, { message: 'x' }), await api.remove(ayse, 999999)]) {
      t.same([answer.statusCode, answer.json()], [404, error('NOT_FOUND')])
    }
    for (const answer of [await api.edit(ayse, 'list', { message: 'x' }), await api.remove(ayse, 'stream'), await api.remove(ayse, '1e3')]) {
      t.same([answer.statusCode, answer.json()], [404, error('NOT_FOUND')])
    }
    const long = await api.remove(ayse, '1234567890123456')
    t.same([long.statusCode, long.json()], [400, badRequest('params/id must match pattern "^[0-9]{1,15}$"')])
    const anonymous = await app.inject({ method: 'DELETE', url: `/api/shoutbox/${mine.id}` })
    t.same([anonymous.statusCode, anonymous.json()], [401, error('NOT_LOGGED_IN')])
  })

  t.test('the message rules apply to an edit', async t => {
    const blank = await api.edit(ayse, mine.id, { message: '\t' })
    t.same([blank.statusCode, blank.json()], [400, badRequest('body/message must not be empty or only whitespace')])
    const long = await api.edit(ayse, mine.id, { message: 'y'.repeat(501) })
    t.same([long.statusCode, long.json()], [400, error('MESSAGE_TOO_LONG', { maxMessageLength: 500 })])
  })

  t.test('after editWindowSeconds → EDIT_WINDOW_CLOSED; 0 turns editing off', async t => {
    await app.db('shoutbox_shouts').where({ id: mine.id }).update({ date: Date.now() - 301_000 })
    const late = await api.edit(ayse, mine.id, { message: 'too late' })
    t.same([late.statusCode, late.json()], [403, error('EDIT_WINDOW_CLOSED')])
    const fresh = expectShout(t, await api.post(ayse, { message: 'fresh' }), { message: 'fresh', username: 'ayse' })
    await api.settings(admin, { editWindowSeconds: 0 })
    const off = await api.edit(ayse, fresh.id, { message: 'fresher' })
    t.same([off.statusCode, off.json()], [403, error('EDIT_WINDOW_CLOSED')])
    await api.settings(admin, { editWindowSeconds: 300 })
    expectShout(t, await api.edit(ayse, fresh.id, { message: 'fresher' }), { id: fresh.id, message: 'fresher', username: 'ayse', date: fresh.date, editedSince: fresh.date })
  })

  t.test('without POST_SHOUTS: no more edits, but one\'s shouts can still be deleted', async t => {
    const fresh = expectShout(t, await api.post(bora, { message: 'soon gone' }), { message: 'soon gone', username: 'bora' })
    const role = await memberRoleId(app, admin)
    await app.inject({ method: 'PUT', url: `/api/panel/roles/${role}`, headers: { cookie: admin }, payload: { name: 'member', permissions: [] } })
    const edit = await api.edit(bora, fresh.id, { message: 'changed' })
    t.same([edit.statusCode, edit.json()], [403, error('NO_PERMISSION')])
    const remove = await api.remove(bora, fresh.id)
    t.same([remove.statusCode, remove.json()], [200, { result: 'ok' }])
    await app.inject({ method: 'PUT', url: `/api/panel/roles/${role}`, headers: { cookie: admin }, payload: { name: 'member', permissions: ['addon.shoutbox.post'] } })
  })

  t.test('the author deletes it, however old: gone from the list, a shout-deleted event, no log entry', async t => {
    const deleted = await api.remove(ayse, mine.id)
    t.same([deleted.statusCode, deleted.json()], [200, { result: 'ok' }])
    t.notOk((await api.list()).some(s => s.id === mine.id))
    const event = await stream.next(e => e.event === 'shout-deleted' && JSON.parse(e.data).id === mine.id)
    t.same(JSON.parse(event.data), { id: mine.id, room: 'general' }, 'the shout\'s id and room alone')
    t.equal(await api.logged('DELETED_SHOUT'), 0, 'members\' own deletions are not the staff\'s record')
    const again = await api.remove(ayse, mine.id)
    t.same([again.statusCode, again.json()], [404, error('NOT_FOUND')])
  })
})

t.test('edits of one\'s own shout: the flood rules of a post, one edit event kept, closed once pinned', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  await api.settings(admin, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 3 })
  const ayse = await account(app, admin, 'ayse')
  const bora = await account(app, admin, 'bora')
  const mine = expectShout(t, await api.post(ayse, { message: 'one' }), { message: 'one', username: 'ayse' })
  const theirs = expectShout(t, await api.post(bora, { message: 'theirs' }), { message: 'theirs', username: 'bora' })

  t.test('refused edits use none of the allowance', async t => {
    for (let i = 0; i < 5; i++) t.equal((await api.edit(ayse, theirs.id, { message: `not mine ${i}` })).statusCode, 403)
    t.equal((await api.edit(ayse, mine.id, { message: ' ' })).statusCode, 400)
  })

  t.test('a post and two edits fill maxShoutsPerMinute 3; the next edit → TOO_MANY_REQUESTS, nothing changes', async t => {
    expectShout(t, await api.edit(ayse, mine.id, { message: 'two' }), { id: mine.id, message: 'two', username: 'ayse', date: mine.date, editedSince: mine.date })
    expectShout(t, await api.edit(ayse, mine.id, { message: 'three' }), { id: mine.id, message: 'three', username: 'ayse', date: mine.date, editedSince: mine.date })
    const events = await app.db('shoutbox_events').count<Array<{ count: string }>>({ count: '*' })
    const flood = await api.edit(ayse, mine.id, { message: 'four' })
    t.same([flood.statusCode, flood.json().error], [429, 'TOO_MANY_REQUESTS'])
    t.ok(within(flood.headers['retry-after'], 1, 60), `Retry-After: ${String(flood.headers['retry-after'])}`)
    t.equal((await api.list()).find(s => s.id === mine.id)?.message, 'three')
    t.same(await app.db('shoutbox_events').count<Array<{ count: string }>>({ count: '*' }), events, 'no event written')
    const post = await api.post(ayse, { message: 'a new one' })
    t.equal(post.statusCode, 429, 'posts and edits share the allowance')
  })

  t.test('a minute later it may edit again; minSecondsBetweenShouts holds between edits too', async t => {
    await timePasses(app, 'ayse', 61_000)
    expectShout(t, await api.edit(ayse, mine.id, { message: 'four' }), { id: mine.id, message: 'four', username: 'ayse', date: mine.date, editedSince: mine.date })
    await api.settings(admin, { minSecondsBetweenShouts: 30 })
    const soon = await api.edit(ayse, mine.id, { message: 'five' })
    t.same([soon.statusCode, soon.json().error], [429, 'TOO_MANY_REQUESTS'])
    await api.settings(admin, { minSecondsBetweenShouts: 0 })
  })

  t.test('the history keeps one edit event for the shout, with its text as it is now', async t => {
    const rows: Array<{ kind: string, shout: RoomShout }> = await app.db('shoutbox_events').orderBy('id').select('kind', 'shout')
    t.same(rows.filter(row => row.shout.id === mine.id).map(row => [row.kind, row.shout.message]), [['shout-created', 'four'], ['shout-edited', 'four']])
  })

  t.test('once a moderator pins it, its author cannot change it (EDIT_WINDOW_CLOSED); unpinned, they can', async t => {
    await timePasses(app, 'ayse', 61_000)
    const pin = (pinned: boolean) => app.inject({ method: 'PUT', url: `/api/panel/shoutbox/${mine.id}/pin`, headers: { cookie: admin }, payload: { pinned } })
    t.equal((await pin(true)).statusCode, 200)
    const edit = await api.edit(ayse, mine.id, { message: 'Free prizes: https://evil.example/login' })
    t.same([edit.statusCode, edit.json()], [403, error('EDIT_WINDOW_CLOSED')])
    const pinned = (await app.inject({ url: '/api/shoutbox/pinned' })).json().shouts as Shout[]
    t.same(pinned.map(s => s.message), ['four'])
    t.equal((await pin(false)).statusCode, 200)
    expectShout(t, await api.edit(ayse, mine.id, { message: 'five' }), { id: mine.id, message: 'five', username: 'ayse', date: mine.date, editedSince: mine.date })
  })

  t.test('holders of MANAGE_SHOUTBOX are exempt, as for posts', async t => {
    const own = expectShout(t, await app.inject({ method: 'POST', url: '/api/shoutbox', headers: { cookie: admin }, payload: { message: 'staff' } }), { message: 'staff', username: 'admin' })
    for (let i = 0; i < 6; i++) t.equal((await api.edit(admin, own.id, { message: `staff ${i}` })).statusCode, 200)
  })
})

/**
 * Waits until `app` (another host process) has heard of a settings change: it reads the
 * settings it remembers, which follow the change notice, not the database.
 */
async function heard (app: App, rules: Record<string, number>): Promise<void> {
  const { value, ms } = await eventually(async () => (await app.inject({ url: '/api/shoutbox/rules' })).json() as Record<string, unknown>,
    now => Object.entries(rules).every(([key, value]) => now[key] === value))
  if (ms === Infinity) throw new Error(`not heard within 15 s: ${JSON.stringify(value)}`)
}

t.test('flood control holds across two host processes on one PostgreSQL', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const admin = await setUp(a)
  const b = await build(t, { db })
  const member = await account(a, admin, 'ilker')
  const both = [client(a), client(b)] as const

  await both[0].settings(admin, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 10 })
  await heard(b, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 10 })
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => both[i % 2]!.post(member, { message: `two processes ${i}` })))
  t.same(answers.filter(x => x.statusCode !== 200).map(x => [x.statusCode, x.json()]), Array(10).fill([429, error('TOO_MANY_REQUESTS')]))
  t.equal(await both[0].stored(), 10, 'exactly maxShoutsPerMinute stored, whichever process took them')

  await both[0].settings(admin, { minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10 })
  await heard(b, { minSecondsBetweenShouts: 3 })
  const other = await account(a, admin, 'jale')
  const pair = await Promise.all([both[0].post(other, { message: 'from a' }), both[1].post(other, { message: 'from b' })])
  t.same(pair.map(x => x.statusCode).sort(), [200, 429], 'two posts at once on two processes: one passes')
  const duplicate = await account(a, admin, 'kaan')
  await both[0].settings(admin, { minSecondsBetweenShouts: 0 })
  await heard(b, { minSecondsBetweenShouts: 0 })
  const twice = await Promise.all([both[0].post(duplicate, { message: 'same' }), both[1].post(duplicate, { message: 'same' })])
  t.same(twice.map(x => x.statusCode).sort(), [200, 409], 'the same text at once on two processes: one passes')
})

t.test('GET /api/shoutbox/rules: what the composer needs, public, current', async t => {
  const app = await build(t)
  const before = await app.inject({ url: '/api/shoutbox/rules' })
  t.same([before.statusCode, before.json()], [503, error('INSTALLATION_REQUIRED')])
  const admin = await setUp(app)
  const rules = await app.inject({ url: '/api/shoutbox/rules' })
  t.same([rules.statusCode, rules.json()], [200, { result: 'ok', maxMessageLength: 500, editWindowSeconds: 300, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, reactions: DEFAULT_REACTIONS }])
  await client(app).settings(admin, { maxMessageLength: 140, editWindowSeconds: 0 })
  t.same((await app.inject({ url: '/api/shoutbox/rules' })).json(), { result: 'ok', maxMessageLength: 140, editWindowSeconds: 0, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, reactions: DEFAULT_REACTIONS })
})

t.test('Manage shoutbox is enough to post and edit in the widget ("post, edit and delete any shout"); panel access alone is not', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const roleWith = async (name: string, permissions: string[]): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name, permissions } })).json().role.id as number
  const mod = await account(app, admin, 'mod', await roleWith('moderators', ['panel.access', 'addon.shoutbox.manage.shoutbox']))
  const clerk = await account(app, admin, 'clerk', await roleWith('clerks', ['panel.access']))
  const posted = await client(app).post(mod, { message: 'From a moderator, in the widget' })
  t.equal(posted.statusCode, 200, 'a moderator without the members\' node posts')
  const id = posted.json().shout.id as number
  const edited = await app.inject({ method: 'PUT', url: `/api/shoutbox/${id}`, headers: { cookie: mod }, payload: { message: 'From a moderator, edited' } })
  t.same([edited.statusCode, edited.json().shout?.message], [200, 'From a moderator, edited'], 'and edits it')
  const refused = await client(app).post(clerk, { message: 'From a clerk' })
  t.same([refused.statusCode, refused.json()], [403, error('NO_PERMISSION')], 'panel access alone does not post')
})
