import pg from 'pg'
import t from 'tap'
import type { AddonContext } from '../../src/sdk/index.js'
import { RecentChanges, nextList } from '../../src/shoutbox/changes/list.js'
import { ShoutboxSettings } from '../../src/shoutbox/settings.js'
import { shoutsRepository } from '../../src/shoutbox/shouts-repository.js'
import { MAX_KEPT_BYTES } from '../../src/host/http/answer-cache.js'
import { LIST_PAGE, LIST_STREAMED_BYTES } from '../../src/shoutbox/endpoints/list-shouts.js'
import { ADMIN, build, login, setUp, type App } from '../helpers/app.js'
import { DB_KIND, TEST_DATABASE_URL, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { streamed } from '../helpers/shouts.js'

/** The list as a rebuild from the database gives it, byte for byte. */
async function rebuilt (app: App): Promise<string> {
  const row = await app.db('addon_config').where({ addon_id: 'shoutbox', key: 'maxShouts' }).first<{ value: number | null } | undefined>('value')
  const shouts = await shoutsRepository(app.db).list(row?.value ?? null)
  return JSON.stringify({ result: 'ok', shouts })
}

const listed = async (app: App): Promise<string> => (await app.inject({ url: '/api/shoutbox/list' })).body
const countsOf = (app: App) => app.answerCache.of('/api/shoutbox/list')!.counts

/** A reproducible sequence of numbers (the steps are the same in every run). */
function random (seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}

t.test('each change is applied to the kept list in place, and gives byte for byte what a rebuild gives', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const next = random(7)
  await listed(app)
  const before = { ...countsOf(app) }
  let publishes = 0
  let edited = 0
  for (let step = 0; step < 60; step++) {
    const roll = next()
    if (roll < 0.5) {
      // A burst of publishes arriving together (written in one transaction).
      const burst = 1 + Math.floor(next() * 5)
      publishes += burst
      await Promise.all(Array.from({ length: burst }, (_, i) =>
        app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: `step ${step}.${i} ünïcödé "quoted" <b>` } })))
    } else if (roll < 0.65) {
      // Edits, some together: a shout in the list, one below its cut, a deleted one, one that never existed.
      const edits = 1 + Math.floor(next() * 3)
      const answers = await Promise.all(Array.from({ length: edits }, (_, i) => {
        const id = 1 + Math.floor(next() * (publishes + 3))
        return app.inject({ method: 'PUT', url: `/api/shoutbox/${id}`, headers: { cookie }, payload: { message: `edited at ${step}.${i} "ü" <i>` } })
      }))
      edited += answers.filter(answer => answer.statusCode === 200).length
    } else if (roll < 0.85) {
      // A shout in the list, one below its cut, or one that never existed.
      const id = 1 + Math.floor(next() * (publishes + 3))
      await app.inject({ method: 'DELETE', url: `/api/panel/shoutbox/${id}`, headers: { cookie } })
    } else {
      const maxShouts = [null, 0, 3, 5, 10][Math.floor(next() * 5)]
      await app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie }, payload: { maxShouts } })
    }
    t.equal(await listed(app), await rebuilt(app), `after step ${step}`)
  }
  t.ok(edited > 3, `shouts were edited (${edited})`)
  const counts = countsOf(app)
  t.ok(counts.updated - before.updated > 20, `most changes were applied in place (${counts.updated - before.updated} in place, ${counts.made - before.made} made anew)`)

  // What the HTTP server sends before Fastify runs follows the same updates.
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  await app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie }, payload: { maxShouts: 5 } })
  await listed(app)
  const made = countsOf(app).made
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'over the wire' } })
  const wire = await fetch(`${address}/api/shoutbox/list`)
  t.equal(await wire.text(), await rebuilt(app), 'the fast path sends the updated bytes')
  t.equal(countsOf(app).made, made, 'without reading the database')
})

t.test('a create heard after its own delete does not bring the shout back, even when no list was kept at the delete', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'kept' } })
  const crossing = { id: 999, kind: 'shout-created', shout: streamed({ id: 999, message: 'deleted elsewhere', username: 'admin', date: 1 }) }
  // The delete is heard while no list is kept (nothing has asked for it yet) …
  await app.cluster.notify('shoutbox:changed', JSON.stringify({ kind: 'shout-deleted', eventIds: [1000], events: [{ id: 1000, kind: 'shout-deleted', shout: { id: 999, room: 'general' } }] }))
  const fresh = await listed(app)
  t.equal(fresh, await rebuilt(app))
  // … then its create, which another process had sent first.
  await app.cluster.notify('shoutbox:changed', JSON.stringify({ kind: 'shout-created', eventIds: [999], events: [crossing] }))
  t.equal(await listed(app), fresh, 'the deleted shout stays out')
})

t.test('a change of a kind this process does not know, or a notice it cannot read, rebuilds the kept answers: nothing is removed', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  for (const message of ['first', 'second', 'third']) {
    await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
  }
  await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/2/pin', headers: { cookie }, payload: { pinned: true } })
  const pinned = async (): Promise<string> => (await app.inject({ url: '/api/shoutbox/pinned' })).body
  const pinnedBefore = await pinned()
  t.match(JSON.parse(pinnedBefore), { shouts: [{ id: 2 }] }, 'shout 2 is pinned')
  // Each is wrong in the one way it names: otherwise its events are as a process sends them (CONTRACT §15, §16: with their room, and a shout with what it answers).
  const notices: Array<[string, string]> = [
    // A kind a newer process may send one day: its event names shout 2 as a delete's does.
    ['an unknown kind', JSON.stringify({ kind: 'shout-archived', eventIds: [900], events: [{ id: 900, kind: 'shout-archived', shout: { id: 2, room: 'general' } }] })],
    ['an unknown kind without events', JSON.stringify({ kind: 'shout-archived', eventIds: [901] })],
    ['not JSON', '{"kind":"shout-deleted","eventIds":[902],"events":[{"id":902,"kind":"shout-deleted","shout":{"id":2,"room":"general"}}'],
    ['JSON null', 'null'],
    ['an array', '[{"kind":"shout-deleted"}]'],
    ['no kind', JSON.stringify({ eventIds: [903], events: [{ id: 903, kind: 'shout-deleted', shout: { id: 2, room: 'general' } }] })],
    ['no event ids', JSON.stringify({ kind: 'shout-deleted', events: [{ id: 904, kind: 'shout-deleted', shout: { id: 2, room: 'general' } }] })],
    ['an event of another kind than its notice', JSON.stringify({ kind: 'shout-created', eventIds: [905], events: [{ id: 905, kind: 'shout-deleted', shout: { id: 2, room: 'general' } }] })],
    ['events that are not those it names', JSON.stringify({ kind: 'shout-deleted', eventIds: [906, 907], events: [{ id: 908, kind: 'shout-deleted', shout: { id: 2, room: 'general' } }] })],
    ['a shout id as text', JSON.stringify({ kind: 'shout-deleted', eventIds: [909], events: [{ id: 909, kind: 'shout-deleted', shout: { id: '2', room: 'general' } }] })],
    ['a deleted shout without its room', JSON.stringify({ kind: 'shout-deleted', eventIds: [913], events: [{ id: 913, kind: 'shout-deleted', shout: { id: 2 } }] })],
    ['a created shout without its text', JSON.stringify({ kind: 'shout-created', eventIds: [910], events: [{ id: 910, kind: 'shout-created', shout: { id: 50, username: 'admin', date: 1, room: 'general', replyTo: null } }] })],
    ['a settings change with events', JSON.stringify({ kind: 'settings', eventIds: [911], events: [{ id: 911, kind: 'shout-deleted', shout: { id: 2, room: 'general' } }] })],
    ['a prototype key', '{"kind":"shout-deleted","eventIds":[912],"events":[{"id":912,"kind":"shout-deleted","shout":{"id":2,"room":"general","__proto__":{"x":1}}}]}']
  ]
  for (const [what, payload] of notices) {
    const listBefore = await listed(app)
    t.match(listBefore, /"id":2,/, `${what}: shout 2 is listed before`)
    const made = countsOf(app).made
    await app.cluster.notify('shoutbox:changed', payload)
    t.equal(await listed(app), await rebuilt(app), `${what}: the list is what the database holds`)
    t.match(await listed(app), /"id":2,/, `${what}: shout 2 is still listed`)
    t.equal(countsOf(app).made, made + 1, `${what}: the list was made anew`)
    t.equal(await pinned(), pinnedBefore, `${what}: shout 2 is still pinned`)
  }
  // A real change after them is applied in place again, once the blind spell is over.
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'after' } })
  t.equal(await listed(app), await rebuilt(app), 'a real change still reaches the list')
})

t.test('two processes under concurrent publishes, edits, deletes and settings changes; then a cut notification link', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const cookieA = await setUp(a)
  const b = await build(t, { db })
  const cookieB = (await b.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'correct horse battery' } })).headers['set-cookie'] as string
  const sessionB = cookieB.split(';')[0]!
  await a.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie: cookieA }, payload: { maxShouts: 8 } })
  await Promise.all([listed(a), listed(b)])

  /** Notices cross between processes through PostgreSQL: wait until both have heard everything. */
  const settled = async (): Promise<void> => {
    const expected = await rebuilt(a)
    await eventually(async () => await listed(a) === expected && await listed(b) === expected, both => both)
  }
  const next = random(11)
  const updatedBefore = countsOf(b).updated
  for (let round = 0; round < 8; round++) {
    await Promise.all(Array.from({ length: 6 }, (_, i) => {
      const [app, cookie] = i % 2 === 0 ? [a, cookieA] : [b, sessionB]
      const roll = next()
      if (roll < 0.55) return app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: `round ${round}, ${i}` } })
      // The admin's own shouts, edited from either process (notices of two processes cross).
      if (roll < 0.75) return app.inject({ method: 'PUT', url: `/api/shoutbox/${1 + Math.floor(next() * (round * 4 + 4))}`, headers: { cookie }, payload: { message: `edited in round ${round}, ${i}` } })
      if (roll < 0.9) return app.inject({ method: 'DELETE', url: `/api/panel/shoutbox/${1 + Math.floor(next() * (round * 4 + 4))}`, headers: { cookie } })
      return app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers: { cookie }, payload: { maxShouts: [4, 8, null][Math.floor(next() * 3)] } })
    }))
    await settled()
    const expected = await rebuilt(a)
    t.equal(await listed(a), expected, `round ${round}: the first process`)
    t.equal(await listed(b), expected, `round ${round}: the second process`)
  }
  t.ok(countsOf(b).updated > updatedBefore, 'the second process applied the first one\'s changes in place')

  // Cut the second process's notification link: it must not serve what it kept.
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  t.teardown(() => admin.end())
  const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`shoutbox-listen:${db.schema}`])
  t.ok(killed.rowCount! >= 1, 'the links were cut')
  await a.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: cookieA }, payload: { message: 'while the link was down' } })
  await eventually(async () => await listed(b) === await rebuilt(a), same => same)
  t.equal(await listed(b), await rebuilt(a), 'after the cut, the second process answers from the database')
  await settled()
  await a.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: cookieA }, payload: { message: 'after the link is back' } })
  await settled()
  t.equal(await listed(b), await rebuilt(a), 'and follows the changes again once relinked')
})

t.test('edits whose notices cross (two processes): the newest text wins, whatever the order they are heard in', async t => {
  // A context of its own: only what nextList, the record of changes and the settings reader touch.
  const heard: Array<(payload: string) => void> = []
  const ctx = {
    cluster: { linked: true, subscribe: (_topic: string, handler: (payload: string) => void) => heard.push(handler), onResync: () => {} },
    config: { all: async () => ({ maxShouts: null, maxMessageLength: 500, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300 }) }
  } as unknown as AddonContext
  await ShoutboxSettings.of(ctx).current()
  RecentChanges.of(ctx).start()
  // A shout as the list shows it: its four fields.
  const shout = (id: number, message: string) => ({ id, message, username: 'ayse', date: 1_795_308_000_000 + id })
  // As the writing process sends it: the shout with its room and what it answers (none); a delete's event names the shout and its room alone.
  const notice = (id: number, kind: string, shoutOf: ReturnType<typeof shout>) =>
    JSON.stringify({ kind, eventIds: [id], events: [{ id, kind, shout: kind === 'shout-deleted' ? { id: shoutOf.id, room: 'general' } : streamed(shoutOf) }] })
  // As the host does: the kept list is updated, then every other subscriber hears the notice.
  const apply = (list: { shouts: unknown[] }, ...notices: string[]) => notices.reduce((l, n) => {
    const next = nextList(l, n, ctx)!
    for (const hear of heard) hear(n)
    return next
  }, list)

  const created = apply({ shouts: [] }, notice(1, 'shout-created', shout(1, 'helo')))
  t.same(created, { shouts: [shout(1, 'helo')] })
  t.same(apply(created, notice(3, 'shout-edited', shout(1, 'hello!')), notice(2, 'shout-edited', shout(1, 'hello'))), { shouts: [shout(1, 'hello!')] },
    'an older edit heard after a newer one is not applied')
  t.same(apply({ shouts: [] }, notice(5, 'shout-edited', shout(4, 'edited first')), notice(4, 'shout-created', shout(4, 'as created'))), { shouts: [shout(4, 'edited first')] },
    'a create heard after an edit of its shout shows the edited text')
  t.same(apply({ shouts: [shout(6, 'gone')] }, notice(7, 'shout-deleted', shout(6, 'gone')), notice(8, 'shout-edited', shout(6, 'edited after all'))), { shouts: [] },
    'an edit heard after the delete does not bring the shout back')
  t.same(JSON.stringify(apply({ shouts: [shout(9, 'a'), shout(8, 'b')] }, notice(10, 'shout-edited', shout(8, 'B')))), JSON.stringify({ shouts: [shout(9, 'a'), shout(8, 'B')] }),
    'the edited shout keeps its place and its fields\' order')
})

t.test('a list answer over MAX_KEPT_BYTES (maxShouts unset on a big board) is sent whole, and not kept', async t => {
  const app = await build(t)
  await setUp(app)
  // 2,100 shouts of about 500 bytes on the wire: over 1 MiB.
  const text = 'x'.repeat(480)
  await app.db('shoutbox_shouts').insert(Array.from({ length: 2100 }, (_, i) => ({ message: `${i} ${text}`, username: 'admin', date: Date.now() })))
  const before = { ...countsOf(app) }
  for (let i = 0; i < 3; i++) {
    const response = await app.inject({ url: '/api/shoutbox/list' })
    t.equal(response.statusCode, 200)
    t.ok(response.rawPayload.length > MAX_KEPT_BYTES, `${response.rawPayload.length} bytes`)
    t.equal((response.json().shouts as unknown[]).length, 2100, 'every shout')
  }
  t.equal(countsOf(app).made - before.made, 3, 'made for each request')
  t.equal(app.answerCache.of('/api/shoutbox/list')!.current, undefined, 'nothing kept')
  // With maxShouts set, the answer is small again, and kept.
  await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: await login(app, 'admin', ADMIN.password) }, payload: { maxShouts: 50 } })
  await app.inject({ url: '/api/shoutbox/list' })
  t.not(app.answerCache.of('/api/shoutbox/list')!.current, undefined, 'kept')
})

t.test('a list of more than LIST_PAGE shouts is read a page at a time: kept while it fits LIST_STREAMED_BYTES, else streamed, byte for byte what one answer would be', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const insert = async (count: number, message: (i: number) => string): Promise<void> => {
    for (let first = 0; first < count; first += 1000) {
      await app.db('shoutbox_shouts').insert(Array.from({ length: Math.min(1000, count - first) }, (_, i) => ({ message: message(first + i), username: 'admin', date: 1_700_000_000_000 + first + i })))
    }
  }
  const reads: number[] = []
  const counting = (query: { sql: string }): void => { if (query.sql.includes('shoutbox_shouts')) reads.push(1) }
  const list = async () => {
    reads.length = 0
    app.db.on('query', counting)
    const response = await app.inject({ url: '/api/shoutbox/list' })
    app.db.off('query', counting)
    return response
  }
  const kept = () => app.answerCache.of('/api/shoutbox/list')!.current

  // 6,000 short shouts: two pages, under LIST_STREAMED_BYTES: one answer, kept.
  await insert(LIST_PAGE + 1000, i => `short ${i} "ü" <b>`)
  const small = await list()
  t.equal(small.body, await rebuilt(app))
  t.ok(small.rawPayload.length < LIST_STREAMED_BYTES, `${small.rawPayload.length} bytes`)
  t.equal(reads.length, 2, 'two pages read')
  t.not(small.headers.etag, undefined, 'an ETag')
  t.not(kept(), undefined, 'kept')

  // 6,000 more, longer: the first page alone passes LIST_STREAMED_BYTES, so the list is streamed.
  // (Written behind the host's back: a settings change makes the kept list anew.)
  await insert(LIST_PAGE + 1000, i => `long ${i} ${'x'.repeat(150)}`)
  const admin = await login(app, 'admin', ADMIN.password)
  await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload: { maxShouts: 100_000 } })
  t.equal(kept(), undefined, 'the kept list is dropped')
  const before = { ...countsOf(app) }
  const big = await list()
  t.equal(big.statusCode, 200)
  t.match(big.headers['content-type'], /^application\/json/)
  t.equal(big.headers.etag, undefined, 'no ETag: the answer is not known before it is sent')
  t.equal(big.body, await rebuilt(app), 'every shout, newest first, as one JSON.stringify of the answer')
  t.equal((big.json().shouts as unknown[]).length, 2 * LIST_PAGE + 2000)
  t.equal(reads.length, 3, 'three pages: the first, which passed the bytes, the second, and the short last')
  t.equal(countsOf(app).made - before.made, 1)
  t.equal(kept(), undefined, 'nothing kept')

  // maxShouts over two pages: streamed, and cut exactly there, in the middle of a page.
  await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload: { maxShouts: 2 * LIST_PAGE + 3 } })
  const cut = await list()
  t.equal(cut.body, await rebuilt(app))
  t.equal((cut.json().shouts as unknown[]).length, 2 * LIST_PAGE + 3)
  t.equal(reads.length, 3)
  // Two at once share the decision, each reads its own pages.
  const [one, two] = await Promise.all([app.inject({ url: '/api/shoutbox/list' }), app.inject({ url: '/api/shoutbox/list' })])
  t.equal(one.body, cut.body)
  t.equal(two.body, cut.body)
  // A publish meanwhile: the next list starts with it.
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'the newest' } })
  const after = (await app.inject({ url: '/api/shoutbox/list' })).json().shouts as Array<{ message: string }>
  t.equal(after[0]!.message, 'the newest')
  t.equal(after.length, 2 * LIST_PAGE + 3)
  t.equal(kept(), undefined, 'still nothing kept')
})
