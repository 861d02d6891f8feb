import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { ANSWERED_KEYS, answered } from '../helpers/shouts.js'
import type { FullShout } from '../helpers/types.js'

/**
 * GET /api/shoutbox/latest: what the widget loads once (and after a stream `reset`) — the
 * newest shouts, bounded, with the pins, in one answer.
 */
t.test('GET /api/shoutbox/latest', async t => {
  const app = await build(t)
  const before = await app.inject({ url: '/api/shoutbox/latest' })
  t.same([before.statusCode, before.json()], [503, { result: 'error', error: 'INSTALLATION_REQUIRED' }], 'not before setup')
  const cookie = await setUp(app)
  const latest = (query = '') => app.inject({ url: `/api/shoutbox/latest${query}` })
  const settings = (body: Record<string, unknown>) => app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie }, payload: body })
  const pin = (id: number) => app.inject({ method: 'PUT', url: `/panel/api/shoutbox/${id}/pin`, headers: { cookie }, payload: { pinned: true } })
  // Every shout here is the default room's, answers none and has no reactions.
  const stored = async (): Promise<FullShout[]> => (await app.db('shoutbox_shouts').orderBy('id', 'desc').select('id', 'message', 'username', 'date'))
    .map(row => answered(row))

  // Awaited: the shouts below are posted only once it has read the empty board (else its read races the first post).
  await t.test('an empty board: nothing, and 50 by default', async t => {
    const response = await latest()
    t.same([response.statusCode, response.body], [200, '{"result":"ok","shouts":[],"pinned":[],"next":null,"limit":50}'])
  })

  for (let i = 1; i <= 60; i++) {
    t.equal((await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: `Shout ${i}` } })).statusCode, 200)
  }
  const all = await stored()

  t.test('maxShouts unset (the list would be all 60): the newest 50, and where the archive goes on', async t => {
    const answer = (await latest()).json()
    t.same(answer, { result: 'ok', shouts: all.slice(0, 50), pinned: [], next: all[49]!.id, limit: 50 })
    t.same(Object.keys(answer.shouts[0]), ANSWERED_KEYS, 'each shout exactly with the list\'s four fields, then its room, replyTo and reactions')
    const older = (await app.inject({ url: `/api/shoutbox/archive?limit=100&before=${answer.next as number}` })).json()
    t.same(older.shouts, all.slice(50), 'the archive from `next` holds exactly the rest')
  })

  t.test('maxShouts set: that many, read at request time', async t => {
    t.equal((await settings({ maxShouts: 7 })).statusCode, 200)
    t.same((await latest()).json(), { result: 'ok', shouts: all.slice(0, 7), pinned: [], next: all[6]!.id, limit: 7 })
    t.equal((await settings({ maxShouts: 60 })).statusCode, 200)
    t.same((await latest()).json(), { result: 'ok', shouts: all, pinned: [], next: null, limit: 60 }, 'a list that holds every shout has no next')
    t.equal((await settings({ maxShouts: 0 })).statusCode, 200)
    t.same((await latest()).json(), { result: 'ok', shouts: [], pinned: [], next: all[0]!.id + 1, limit: 0 }, 'none shown: the archive goes on from the newest')
    t.equal((await settings({ maxShouts: null })).statusCode, 200)
  })

  t.test('?limit= asks for that many (the panel\'s pages), whatever maxShouts says', async t => {
    t.equal((await settings({ maxShouts: 3 })).statusCode, 200)
    t.same((await latest('?limit=5')).json(), { result: 'ok', shouts: all.slice(0, 5), pinned: [], next: all[4]!.id, limit: 5 })
    t.same((await latest('?limit=100')).json(), { result: 'ok', shouts: all, pinned: [], next: null, limit: 100 })
    t.equal((await settings({ maxShouts: null })).statusCode, 200)
  })

  t.test('the pins come with it, newest pin first, also when older than the shouts shown', async t => {
    const oldest = all.at(-1)!
    for (const shout of [all[0]!, oldest]) t.equal((await pin(shout.id)).statusCode, 200)
    const answer = (await latest('?limit=2')).json()
    t.same(answer.pinned, [oldest, all[0]])
    t.same(answer.shouts, all.slice(0, 2), 'a pinned shout among the newest is among the shouts too, as in the list')
  })

  t.test('an attacker\'s requests: bad limits are refused in the envelope and change nothing', async t => {
    for (const query of ['?limit=0', '?limit=101', '?limit=-1', '?limit=abc', '?limit=1.5', '?limit=5&limit=6', '?limit=1e2', '?limit=%00']) {
      const response = await latest(query)
      t.equal(response.statusCode, 400, query)
      t.equal(response.json().error, 'BAD_REQUEST', query)
    }
    t.same(await stored(), all, 'nothing written')
  })

  t.test('writes are not accepted on it', async t => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const response = await app.inject({ method, url: '/api/shoutbox/latest', headers: { cookie }, payload: {} })
      t.equal(response.statusCode, 404, method)
      t.equal(response.json().result, 'error', method)
    }
  })

  t.test('a visitor\'s load is kept until a change is heard: the next ones cost no query, each change shows at the next load, a room closed to visitors is refused', async t => {
    const queries: string[] = []
    const count = (query: { sql: string }): void => { queries.push(query.sql) }
    const first = await latest()
    app.db.on('query', count)
    t.teardown(() => { app.db.removeListener('query', count) })
    const again = await latest('?room=general')
    t.equal(again.body, first.body, 'the same answer')
    t.same(queries, [], 'from memory: no query')
    t.equal(again.headers['content-type'], 'application/json; charset=utf-8')
    t.equal((await latest(`?limit=${first.json().limit as number}`)).body, first.body, 'encoded once, byte for byte as the answer made for one request')
    t.ok((await latest('?limit=3')).json().shouts.length === 3 && queries.length > 0, 'with ?limit= it is read (the panel\'s pages)')

    queries.length = 0
    t.equal((await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: 'Kept no more' } })).statusCode, 200)
    const after = (await latest()).json()
    t.equal(after.shouts[0].message, 'Kept no more', 'a publish shows at the next load')
    t.ok(queries.length > 0, 'read again')
    const id = after.shouts[0].id as number
    t.equal((await app.inject({ method: 'PUT', url: `/api/shoutbox/shouts/${id}/reactions/${encodeURIComponent('👍')}`, headers: { cookie } })).statusCode, 200)
    t.match((await latest()).json().shouts[0].reactions, [{ emoji: '👍', count: 1 }], 'so does a reaction')

    // A public room, kept for visitors, then closed to them: refused at once, as a room that does not exist.
    const made = await app.inject({ method: 'POST', url: '/panel/api/shoutbox/rooms', headers: { cookie }, payload: { slug: 'lobby', name: 'Lobby' } })
    t.equal(made.statusCode, 200)
    t.equal((await latest('?room=lobby')).statusCode, 200)
    t.equal((await latest('?room=lobby')).statusCode, 200, 'kept')
    const room = made.json().room as { id: number }
    t.equal((await app.inject({ method: 'PUT', url: `/panel/api/shoutbox/rooms/${room.id}`, headers: { cookie }, payload: { read: 'panel.access' } })).statusCode, 200)
    const closed = await latest('?room=lobby')
    t.same([closed.statusCode, closed.json().error], [404, 'NOT_FOUND'], 'staff only now: refused')
  })

  t.test('a burst of 200 anonymous loads: each answered whole, the same, and the process goes on', async t => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => latest()))
    t.same([...new Set(answers.map(answer => answer.statusCode))], [200])
    t.equal(new Set(answers.map(answer => answer.body)).size, 1, 'one answer for all')
    t.equal((await app.inject({ url: '/api/health' })).statusCode, 200)
  })
})
