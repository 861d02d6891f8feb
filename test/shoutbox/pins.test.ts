import t from 'tap'
import { build, setUp, userWith, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { ANSWERED_KEYS, answered, withoutReactions } from '../helpers/shouts.js'
import { connectSse } from '../helpers/sse.js'
import type { FullShout as Shout } from '../helpers/types.js'

const pin = (app: App, cookie: string, id: number | string, pinned: unknown = true) =>
  app.inject({ method: 'PUT', url: `/panel/api/shoutbox/${id}/pin`, headers: { cookie }, payload: { pinned } })
const pinned = async (app: App) => (await app.inject({ url: '/api/shoutbox/pinned' })).json()
const publish = (app: App, cookie: string, message: string) =>
  app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message } })
/**
 * The shouts as stored, oldest first, as the pinned shouts show them: the list's four fields,
 * then the room (CONTRACT §15), replyTo and reactions (§16). Every one here is the default
 * room's, answers none and has no reactions.
 */
const shouts = async (app: App): Promise<Shout[]> => (await app.db('shoutbox_shouts').orderBy('id').select('id', 'message', 'username', 'date'))
  .map(row => answered(row))
const OK = { result: 'ok' }

/** CONTRACT §14: PUT /api/panel/shoutbox/:id/pin and GET /api/shoutbox/pinned. */
t.test('pinned shouts', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  for (const message of ['one', 'two', 'three', 'four', 'five']) await publish(app, admin, message)
  const [one, two, three, four, five] = await shouts(app) as [Shout, Shout, Shout, Shout, Shout]

  t.test('none pinned at first', async t => {
    const response = await app.inject({ url: '/api/shoutbox/pinned' })
    t.same([response.statusCode, response.body], [200, '{"result":"ok","shouts":[]}'])
  })

  t.test('pinning answers {"result":"ok"}; pinned lists them newest pin first, with the seven fields (the room, replyTo and reactions last)', async t => {
    for (const shout of [two, one, four]) {
      const response = await pin(app, admin, shout.id)
      t.same([response.statusCode, response.json()], [200, OK])
    }
    const answer = await pinned(app)
    t.same(answer, { result: 'ok', shouts: [four, one, two] })
    t.same(Object.keys(answer.shouts[0]), ANSWERED_KEYS)
  })

  t.test('each pin and unpin is logged, in English and Turkish', async t => {
    const entries = await app.db('activity_logs').where({ type: 'PINNED_SHOUT' }).orderBy('id')
    t.same(entries.map(e => [e.user_id, e.username, e.addon_id, e.details]), [
      [1, 'admin', 'shoutbox', { shoutId: two.id, author: 'admin', message: 'two', room: 'general' }],
      [1, 'admin', 'shoutbox', { shoutId: one.id, author: 'admin', message: 'one', room: 'general' }],
      [1, 'admin', 'shoutbox', { shoutId: four.id, author: 'admin', message: 'four', room: 'general' }]
    ])
    const en = await app.inject({ url: '/api/panel/logs/activity?locale=en', headers: { cookie: admin } })
    t.equal(en.json().logs[0].text, 'admin pinned a shout by admin: four')
    const tr = await app.inject({ url: '/api/panel/logs/activity?locale=tr', headers: { cookie: admin } })
    t.equal(tr.json().logs[0].text, 'admin, admin kullanıcısının duyurusunu sabitledi: four')
  })

  t.test('beyond maxPinned (3) → 409 TOO_MANY_PINNED, nothing pinned or logged', async t => {
    const logged = (await app.db('activity_logs')).length
    const response = await pin(app, admin, five.id)
    t.same([response.statusCode, response.json()], [409, { result: 'error', error: 'TOO_MANY_PINNED', maxPinned: 3 }])
    t.same(await pinned(app), { result: 'ok', shouts: [four, one, two] })
    t.equal((await app.db('activity_logs')).length, logged)
  })

  t.test('asking for the state a shout is in already changes and logs nothing', async t => {
    const logged = (await app.db('activity_logs')).length
    t.same((await pin(app, admin, one.id)).json(), OK)
    t.same((await pin(app, admin, three.id, false)).json(), OK)
    t.same(await pinned(app), { result: 'ok', shouts: [four, one, two] }, 'a pinned shout keeps its place')
    t.equal((await app.db('activity_logs')).length, logged)
  })

  t.test('unpinning frees a place; UNPINNED_SHOUT is logged; pinning again puts it first', async t => {
    t.same((await pin(app, admin, one.id, false)).json(), OK)
    t.same(await pinned(app), { result: 'ok', shouts: [four, two] })
    const entry = await app.db('activity_logs').orderBy('id', 'desc').first()
    t.same([entry.type, entry.details], ['UNPINNED_SHOUT', { shoutId: one.id, author: 'admin', message: 'one', room: 'general' }])
    const en = await app.inject({ url: '/api/panel/logs/activity?locale=en', headers: { cookie: admin } })
    t.equal(en.json().logs[0].text, 'admin unpinned a shout by admin: one')
    const tr = await app.inject({ url: '/api/panel/logs/activity?locale=tr', headers: { cookie: admin } })
    t.equal(tr.json().logs[0].text, 'admin, admin kullanıcısının duyurusunun sabitlemesini kaldırdı: one')
    t.same((await pin(app, admin, two.id, false)).json(), OK)
    t.same((await pin(app, admin, two.id)).json(), OK)
    t.same(await pinned(app), { result: 'ok', shouts: [two, four] }, 'newest pin first')
  })

  t.test('a lower maxPinned keeps the pins there are, and refuses new ones', async t => {
    await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload: { maxPinned: 1 } })
    t.same(await pinned(app), { result: 'ok', shouts: [two, four] })
    const response = await pin(app, admin, five.id)
    t.same([response.statusCode, response.json()], [409, { result: 'error', error: 'TOO_MANY_PINNED', maxPinned: 1 }])
    await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload: { maxPinned: 0 } })
    t.same((await pin(app, admin, four.id, false)).json(), OK, 'unpinning is always allowed')
    t.same((await pin(app, admin, four.id)).json(), { result: 'error', error: 'TOO_MANY_PINNED', maxPinned: 0 })
    await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload: { maxPinned: 3 } })
    t.same(await pinned(app), { result: 'ok', shouts: [two] })
  })

  t.test('a deleted pinned shout leaves the pinned shouts', async t => {
    await pin(app, admin, three.id)
    t.same(await pinned(app), { result: 'ok', shouts: [three, two] })
    await app.inject({ method: 'DELETE', url: `/panel/api/shoutbox/${three.id}`, headers: { cookie: admin } })
    t.same(await pinned(app), { result: 'ok', shouts: [two] })
  })

  t.test('unknown shout → 404 NOT_FOUND; bad id or body → 400', async t => {
    for (const id of ['999', '0', String(three.id)]) {
      const response = await pin(app, admin, id)
      t.same([response.statusCode, response.json()], [404, { result: 'error', error: 'NOT_FOUND' }], id)
    }
    const badId = await pin(app, admin, 'abc')
    t.same([badId.statusCode, badId.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'params/id must match pattern "^[0-9]{1,15}$"' }])
    for (const [payload, bodyValidationError] of [
      [{}, "body must have required property 'pinned'"],
      [{ pinned: 'yes' }, 'body/pinned must be boolean'],
      [{ pinned: 1 }, 'body/pinned must be boolean'],
      [{ pinned: null }, 'body/pinned must be boolean']
    ] as const) {
      const response = await app.inject({ method: 'PUT', url: `/panel/api/shoutbox/${one.id}/pin`, headers: { cookie: admin }, payload })
      t.same([response.statusCode, response.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError }], JSON.stringify(payload))
    }
  })

  t.test('needs a session, panel access and MANAGE_SHOUTBOX', async t => {
    const anonymous = await app.inject({ method: 'PUT', url: `/panel/api/shoutbox/${one.id}/pin`, payload: { pinned: true } })
    t.same([anonymous.statusCode, anonymous.json()], [401, { result: 'error', error: 'NOT_LOGGED_IN' }])
    const helper = await userWith(app, admin, 'helper', ['panel.access'])
    const refused = await pin(app, helper, one.id)
    t.same([refused.statusCode, refused.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
    const moderator = await userWith(app, admin, 'moderator', ['panel.access', 'addon.shoutbox.manage.shoutbox'])
    t.same((await pin(app, moderator, one.id)).json(), OK)
    t.same(await pinned(app), { result: 'ok', shouts: [one, two] })
  })

  t.test('the list itself is unchanged by pins, and keeps its kept answer', async t => {
    const before = (await app.inject({ url: '/api/shoutbox/list' })).body
    const counts = app.answerCache.of('/api/shoutbox/list')!.counts
    const { made, dropped } = counts
    await pin(app, admin, five.id)
    await pin(app, admin, five.id, false)
    t.equal((await app.inject({ url: '/api/shoutbox/list' })).body, before)
    t.same([counts.made, counts.dropped], [made, dropped], 'neither dropped nor made anew')
  })

  t.test('the pinned answer is kept across publishes, made anew after a pin', async t => {
    await pinned(app)
    const counts = app.answerCache.of('/api/shoutbox/pinned')!.counts
    const made = counts.made
    await publish(app, admin, 'six')
    t.same(await pinned(app), { result: 'ok', shouts: [one, two] })
    t.equal(counts.made, made, 'a publish keeps it')
    await pin(app, admin, five.id)
    t.same(await pinned(app), { result: 'ok', shouts: [five, one, two] })
    t.equal(counts.made, made + 1, 'a pin makes it anew')
  })

  t.test('a pinned shout a moderator edits shows its new text and `edited` among the pinned, at once', async t => {
    const before = Date.now()
    const edit = await app.inject({ method: 'PUT', url: `/api/panel/shoutbox/${one.id}`, headers: { cookie: admin }, payload: { message: 'one, said better' } })
    t.equal(edit.statusCode, 200, edit.body)
    const shown = (await pinned(app)).shouts as Array<Shout & { edited?: number }>
    const edited = shown.find(shout => shout.id === one.id)!
    t.equal(edited.message, 'one, said better')
    t.ok(Number.isInteger(edited.edited) && edited.edited! >= before && edited.edited! <= Date.now(), '`edited` says when')
    t.same(Object.keys(edited), [...ANSWERED_KEYS, 'edited'], '`edited` comes last')
    t.same(shown.filter(shout => shout.id !== one.id), [five, two], 'the other pins are as they were')
  })
})

t.test('pins and unpins are events on the live stream', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  await publish(app, admin, 'pin me')
  const [shout] = await shouts(app)
  const client = connectSse(`${address}/api/shoutbox/stream`)
  t.teardown(() => client.close())
  await client.next(e => e.event === 'ready')
  await pin(app, admin, shout!.id)
  // The stream carries the shout as the pinned shouts show it, but for its reactions (those come as their own events).
  const pinnedEvent = await client.next(e => e.event === 'shout-pinned')
  t.same(JSON.parse(pinnedEvent.data), withoutReactions(shout!))
  await pin(app, admin, shout!.id, false)
  const unpinnedEvent = await client.next(e => e.event === 'shout-unpinned')
  t.same(JSON.parse(unpinnedEvent.data), withoutReactions(shout!))
})

t.test('pins at once never pass maxPinned', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  for (let i = 1; i <= 12; i++) await publish(app, admin, `shout ${i}`)
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => pin(app, admin, i + 1)))
  const statuses = answers.map(a => a.statusCode).sort()
  t.same(statuses, [200, 200, 200, ...Array(9).fill(409)], 'three pinned, nine refused')
  t.equal((await pinned(app)).shouts.length, 3)
  t.equal((await app.db('activity_logs').where({ type: 'PINNED_SHOUT' })).length, 3)
})

t.test('two processes pinning at once never pass maxPinned', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const cookieA = await setUp(a)
  const b = await build(t, { db })
  const cookieB = (await b.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'correct horse battery' } })).headers['set-cookie'] as string
  const sessionB = cookieB.split(';')[0]!
  for (let i = 1; i <= 20; i++) await publish(a, cookieA, `shout ${i}`)
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => i % 2 === 0 ? pin(a, cookieA, i + 1) : pin(b, sessionB, i + 1)))
    t.equal(answers.filter(r => r.statusCode === 200).length, 3, `round ${round}: three pinned`)
    t.equal(answers.filter(r => r.statusCode === 409).length, 17, `round ${round}: the others refused`)
    const rows = await a.db('shoutbox_pins').select('shout_id')
    t.equal(rows.length, 3)
    await Promise.all(rows.map(({ shout_id: id }) => pin(a, cookieA, id, false)))
  }
})
