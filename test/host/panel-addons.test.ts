import t from 'tap'
import { build, setUp, userWith } from '../helpers/app.js'
import { testDatabase } from '../helpers/database.js'
import type { FeedEntry } from '../helpers/types.js'

t.test('disabling an addon: applied at the next restart, its data kept', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const first = await build(t, { db })
  const cookie = await setUp(first)
  await first.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'kept' } })

  const listed = await first.inject({ url: '/api/panel/addons', headers: { cookie } })
  t.same(listed.json(), { result: 'ok', addons: [{
    id: 'shoutbox', name: 'Shoutbox', version: '0.1.0',
    description: 'A shout board: administrators post short messages, visitors see the latest ones.',
    enabled: true, active: true, builtin: true
  }] })
  const off = await first.inject({ method: 'PUT', url: '/api/panel/addons/shoutbox', headers: { cookie }, payload: { enabled: false } })
  t.same([off.statusCode, off.json()], [200, { result: 'ok', restartRequired: true }])
  t.equal((await first.inject({ url: '/api/shoutbox/list' })).statusCode, 200, 'still served until the restart')
  t.match((await first.inject({ url: '/api/panel/addons', headers: { cookie } })).json().addons[0], { enabled: false, active: true })
  const unknown = await first.inject({ method: 'PUT', url: '/api/panel/addons/nope', headers: { cookie }, payload: { enabled: false } })
  t.same([unknown.statusCode, unknown.json()], [404, { result: 'error', error: 'NOT_FOUND' }])
  await first.close()

  const second = await build(t, { db })
  const gone = await second.inject({ url: '/api/shoutbox/list' })
  t.same([gone.statusCode, gone.json()], [404, { result: 'error', error: 'NOT_FOUND' }], 'its endpoints answer 404 after the restart')
  t.ok(await second.db.schema.hasTable('shoutbox_shouts'), 'its table is kept')
  const on = await second.inject({ method: 'PUT', url: '/api/panel/addons/shoutbox', headers: { cookie }, payload: { enabled: true } })
  t.same(on.json(), { result: 'ok', restartRequired: true })
  await second.close()

  const third = await build(t, { db })
  const back = await third.inject({ url: '/api/shoutbox/list' })
  t.match(back.json(), { result: 'ok', shouts: [{ message: 'kept' }] }, 'back, with its data')
  const feed = await third.inject({ url: '/api/panel/logs/activity', headers: { cookie } })
  t.same(feed.json().logs.slice(0, 2).map((l: FeedEntry) => l.text), ['admin enabled the addon shoutbox', 'admin disabled the addon shoutbox'])
})

t.test('managing addons needs panel.manage.addons', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const user = await userWith(app, admin, 'eve', ['panel.access'])
  const response = await app.inject({ method: 'PUT', url: '/api/panel/addons/shoutbox', headers: { cookie: user }, payload: { enabled: false } })
  t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
})
