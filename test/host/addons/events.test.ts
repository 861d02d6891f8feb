import t from 'tap'
import { build, setUp } from '../../helpers/app.js'
import { greeterAddonsDir } from '../../helpers/fixtures.js'
import type { RecordedEvent } from '../../helpers/types.js'

t.test('listeners are discovered and receive host events and other addons\' events', async t => {
  const addonsDir = await greeterAddonsDir(t)
  const app = await build(t, { config: { addonsDir } })
  const cookie = await setUp(app)
  const echo = await app.inject({ method: 'POST', url: '/api/greeter/echo', payload: { text: 'ping' } })
  t.same([echo.statusCode, echo.json()], [200, { result: 'ok', text: 'ping' }], 'a throwing listener does not fail the request')
  const publish = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'hi' } })
  t.equal(publish.statusCode, 200)
  await app.events.drain()

  const events = (await app.inject({ url: '/api/greeter/events' })).json().events as RecordedEvent[]
  const byName = (name: string) => events.filter(e => e.event === name)
  t.same(byName('host.addon-started').map(e => e.payload).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [{ addonId: 'greeter' }, { addonId: 'shoutbox' }], 'addon started, for each addon')
  t.same(byName('host.setup-finished').map(e => e.payload), [{ admin: { id: 1, username: 'admin' } }], 'setup finished')
  t.same(byName('host.user-signed-in').map(e => e.payload), [{ user: { id: 1, username: 'admin' } }], 'setup signs the admin in')
  t.same(byName('greeter.echoed').map(e => e.payload), [{ text: 'ping' }], 'its own event, despite the other listener throwing')
  const created = byName('shoutbox.shout-created')
  t.equal(created.length, 1, 'another addon\'s event')
  t.match(created[0], { payload: { id: 1, message: 'hi', username: 'admin', room: 'general' }, committed: true }, 'delivered after commit, with the shout and its room')

  await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'correct horse battery' } })
  await app.events.drain()
  const after = (await app.inject({ url: '/api/greeter/events' })).json().events as Array<{ event: string, payload: unknown }>
  t.same(after.filter(e => e.event === 'host.user-signed-in').map(e => e.payload),
    [{ user: { id: 1, username: 'admin' } }, { user: { id: 1, username: 'admin' } }], 'user signed in')
})

t.test('an event emitted inside a transaction that rolls back is never delivered', async t => {
  const addonsDir = await greeterAddonsDir(t)
  const app = await build(t, { config: { addonsDir } })
  await setUp(app)
  const ctx = app.addons.runtimes.get('greeter')!.ctx
  await t.rejects(ctx.transaction(async trx => {
    ctx.events.emit({ name: 'greeter.echoed' }, { text: 'rolled back' }, trx)
    throw new Error('abort')
  }), { message: 'abort' })
  await app.events.drain()
  const events = (await app.inject({ url: '/api/greeter/events' })).json().events as Array<{ event: string }>
  t.same(events.filter(e => e.event === 'greeter.echoed'), [])
})
