import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { streamed } from '../helpers/shouts.js'
import { connectSse } from '../helpers/sse.js'
import type { Shout, Tap } from '../helpers/types.js'

/** A board with the shout 'one', its list read once (so cached), and that list's tag. */
async function cachedList (t: Tap) {
  const app = await build(t)
  const cookie = await setUp(app)
  const publish = (message: string) => app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
  await publish('one')

  const first = await app.inject({ url: '/api/shoutbox/list' })
  const etag = first.headers.etag as string
  return { app, cookie, publish, first, etag }
}

t.test('the list is cached, tagged and revalidated', async t => {
  // The shared board is for 'served from memory', which changes it and checks it against
  // the tag read here, and 'a rolled-back publish', which only compares a tag before and
  // after. The other subtests would see those changes: they stage boards of their own.
  const { app, publish, first, etag } = await cachedList(t)
  t.match(etag, /^"[A-Za-z0-9_-]{27}"$/, 'an ETag')
  t.equal(first.headers['cache-control'], 'no-cache', 'clients revalidate every time')

  t.test('If-None-Match with the current tag → 304, no body', async t => {
    const { app, etag } = await cachedList(t)
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await app.inject({ url: '/api/shoutbox/list', headers: { 'if-none-match': header } })
      t.same([response.statusCode, response.body], [304, ''], header)
    }
    t.equal((await app.inject({ url: '/api/shoutbox/list', headers: { 'if-none-match': '"stale"' } })).statusCode, 200)
  })

  t.test('served from memory: a row written behind the service\'s back is not seen until the list is made anew', async t => {
    const counts = app.answerCache.of('/api/shoutbox/list')!.counts
    await app.db('shoutbox_shouts').insert({ message: 'sneaked in', username: 'nobody', date: 1 })
    t.same((await app.inject({ url: '/api/shoutbox/list' })).json().shouts.map((s: Shout) => s.message), ['one'])
    const made = counts.made
    await publish('two')
    const after = await app.inject({ url: '/api/shoutbox/list' })
    t.same(after.json().shouts.map((s: Shout) => s.message), ['two', 'one'], 'a publish is applied to the kept list at once')
    t.equal(counts.made, made, 'in place: the database was not read')
    t.not(after.headers.etag, etag, 'and the tag changes')
    t.equal((await app.inject({ url: '/api/shoutbox/list', headers: { 'if-none-match': etag } })).statusCode, 200)
  })

  t.test('a delete is applied in place too; a settings change makes the list anew', async t => {
    // Its own board: 'one', a row written behind the service's back, 'two', the list cached.
    const { app, cookie, publish } = await cachedList(t)
    await app.db('shoutbox_shouts').insert({ message: 'sneaked in', username: 'nobody', date: 1 })
    await publish('two')
    await app.inject({ url: '/api/shoutbox/list' })
    await app.inject({ method: 'DELETE', url: '/api/panel/shoutbox/1', headers: { cookie } })
    t.same((await app.inject({ url: '/api/shoutbox/list' })).json().shouts.map((s: Shout) => s.message), ['two'])
    await app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie }, payload: { maxShouts: 5 } })
    t.same((await app.inject({ url: '/api/shoutbox/list' })).json().shouts.map((s: Shout) => s.message), ['two', 'sneaked in'], 'read from the database')
    await app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie }, payload: { maxShouts: 1 } })
    t.same((await app.inject({ url: '/api/shoutbox/list' })).json().shouts.map((s: Shout) => s.message), ['two'])
  })

  t.test('a rolled-back publish leaves the cache as it was', async t => {
    const before = (await app.inject({ url: '/api/shoutbox/list' })).headers.etag
    await publish('') // refused: nothing announced
    t.equal((await app.inject({ url: '/api/shoutbox/list' })).headers.etag, before)
  })
})

t.test('the live stream', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `${address}/api/shoutbox/stream`
  const publish = (message: string) => app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })

  const client = connectSse(url)
  t.teardown(() => client.close())
  t.equal(await client.status, 200)
  const ready = await client.next(e => e.event === 'ready')
  t.same(ready, { id: '0', event: 'ready', data: '{}' }, 'a fresh client learns where the stream stands')

  await publish('live one')
  const [shout] = (await app.inject({ url: '/api/shoutbox/list' })).json().shouts
  const created = await client.next(e => e.event === 'shout-created')
  // The list keeps its four fields; an event carries them, in the list's order, then the room (CONTRACT §15) and what it answers (§16).
  t.equal(created.data, JSON.stringify(streamed(shout)), 'every new shout, as the list shows it, then its room and replyTo (null: it answers none)')
  t.equal(created.id, '1')

  await app.inject({ method: 'DELETE', url: `/api/panel/shoutbox/${shout.id}`, headers: { cookie } })
  const deleted = await client.next(e => e.event === 'shout-deleted')
  t.same([deleted.id, deleted.data], ['2', JSON.stringify({ id: shout.id, room: 'general' })], 'every deletion, by the shout\'s id and room alone')

  t.test('Last-Event-ID resumes after a reconnect', async t => {
    await publish('missed a')
    await publish('missed b')
    const resumed = connectSse(url, { 'last-event-id': '2' })
    t.teardown(() => resumed.close())
    const b = await resumed.next(e => JSON.parse(e.data).message === 'missed b')
    t.same(resumed.events.map(e => [e.id, e.event, JSON.parse(e.data).message]), [['3', 'shout-created', 'missed a'], ['4', 'shout-created', 'missed b']])
    t.equal(b.id, '4')
    const viaQuery = connectSse(`${url}?lastEventId=3`)
    t.teardown(() => viaQuery.close())
    await viaQuery.next(e => e.id === '4')
    t.same(viaQuery.events.map(e => e.id), ['4'])
  })

  t.test('public, and only after setup', async t => {
    const fresh = await build(t)
    const response = await fresh.inject({ url: '/api/shoutbox/stream' })
    t.same([response.statusCode, response.json()], [503, { result: 'error', error: 'INSTALLATION_REQUIRED' }])
  })
})
