import pg from 'pg'
import t from 'tap'
import { ADMIN } from './helpers/app.js'
import { DB_KIND, TEST_DATABASE_URL } from './helpers/database.js'
import { eventually } from './helpers/eventually.js'
import { http, serverStorage, startServer, type RunningServer } from './helpers/server.js'
import { connectSse } from './helpers/sse.js'
import type { Shout } from './helpers/types.js'

const messages = async (server: RunningServer): Promise<string[]> =>
  ((await http(server, 'GET', '/api/shoutbox/list')).body!.shouts as Shout[]).map(s => s.message)

t.test('two host processes on one PostgreSQL', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const storage = await serverStorage(t)
  const [a, b] = await Promise.all([startServer(t, { env: storage.env }), startServer(t, { env: storage.env })])

  // The stage every subtest shares: setup finished on one is seen by the other, and the
  // admin's session. The subtests then check changes relative to what they find (the
  // newest shout, a count they wait for), so none relies on what another left.
  t.same((await http(b, 'GET', '/api/setup/status')).body, { result: 'ok', setupDone: false })
  t.equal((await http(a, 'POST', '/api/setup/finish', { body: ADMIN })).status, 200)
  t.same((await http(b, 'GET', '/api/setup/status')).body, { result: 'ok', setupDone: true })
  t.same((await http(b, 'GET', '/api/shoutbox/list')).body, { result: 'ok', shouts: [] }, 'and its addons run there too')

  const cookie = (await http(a, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN.password } })).cookie!

  t.test('a session made on one works on the other', async t => {
    t.match((await http(b, 'GET', '/api/auth/me', { cookie })).body, { result: 'ok', user: { username: 'admin' } })
  })

  t.test('a sign-out on one ends the session on the other; a role change on one applies on the other', async t => {
    const second = (await http(a, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN.password } })).cookie!
    t.equal((await http(b, 'GET', '/api/auth/me', { cookie: second })).status, 200, 'b now remembers the session')
    await http(a, 'POST', '/api/auth/logout', { cookie: second })
    const ended = await eventually(async () => (await http(b, 'GET', '/api/auth/me', { cookie: second })).status, status => status === 401)
    t.ok(ended.ms < Infinity, `refused on b after ${ended.ms} ms`)

    const role = await http(a, 'POST', '/api/panel/roles', { body: { name: 'Mods', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox'] }, cookie })
    await http(a, 'POST', '/api/panel/users', { body: { username: 'mod', email: 'mod@example.org', password: 'a long password', roleId: (role.body!.role as { id: number }).id }, cookie })
    const mod = (await http(b, 'POST', '/api/auth/login', { body: { username: 'mod', password: 'a long password' } })).cookie!
    t.equal((await http(b, 'GET', '/panel/api/shoutbox/config', { cookie: mod })).status, 200, 'granted, as seen by b')
    await http(a, 'PUT', `/api/panel/roles/${(role.body!.role as { id: number }).id}`, { body: { name: 'Mods', permissions: ['panel.access'] }, cookie })
    const revoked = await eventually(async () => (await http(b, 'GET', '/panel/api/shoutbox/config', { cookie: mod })).status, status => status === 403)
    t.ok(revoked.ms < Infinity, `revoked on b after ${revoked.ms} ms`)
  })

  t.test('a site-name change on one shows on the other\'s pages within 2 s, no rebuild', async t => {
    const page = async (): Promise<string> => await (await fetch(`${b.url}/`, { headers: { 'accept-language': 'de' } })).text()
    t.match(await page(), /<title>Unsere Gemeinschaft<\/title>/, 'b draws (and keeps) the theme\'s name, in German')
    const put = await http(a, 'PUT', '/api/panel/site-face', { body: { siteName: 'Kedi Kulübü', accent: '#c2185b' }, cookie })
    t.equal(put.status, 200)
    const seen = await eventually(page, html => html.includes('<title>Kedi Kulübü</title>'), 2000)
    t.ok(seen.ms <= 2000, `b's pages name it after ${seen.ms} ms`)
    const css = await (await fetch(`${b.url}/theme/face.css`)).text()
    t.match(css, /--site-accent: light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\)/, 'and b\'s style sheet carries the accent')
  })

  t.test('a publish on one is in the other\'s (cached) list within a moment', async t => {
    await messages(b) // warm b's cache
    t.equal((await http(a, 'POST', '/api/panel/shoutbox', { body: { message: 'from a' }, cookie })).status, 200)
    const seen = await eventually(() => messages(b), m => m[0] === 'from a')
    t.ok(seen.ms < Infinity, `seen on b after ${seen.ms} ms`)
  })

  t.test('a delete on one is in the other\'s list within a moment', async t => {
    await http(b, 'POST', '/api/panel/shoutbox', { body: { message: 'doomed' }, cookie })
    t.ok((await eventually(() => messages(a), m => m[0] === 'doomed')).ms < Infinity, 'a publish on b reaches a')
    const id = ((await http(b, 'GET', '/api/shoutbox/list')).body!.shouts as Shout[])[0]!.id
    t.equal((await http(b, 'DELETE', `/api/panel/shoutbox/${id}`, { cookie })).status, 200)
    const seen = await eventually(() => messages(a), m => !m.includes('doomed'))
    t.ok(seen.ms < Infinity, `gone on a after ${seen.ms} ms`)
  })

  t.test('a settings change on one applies to the other\'s next list within a moment', async t => {
    // At least two shouts, and b showing them, before the cap of one.
    await http(a, 'POST', '/api/panel/shoutbox', { body: { message: 'first' }, cookie })
    await http(a, 'POST', '/api/panel/shoutbox', { body: { message: 'second' }, cookie })
    t.ok((await eventually(() => messages(b), m => m.length >= 2 && m[0] === 'second')).ms < Infinity, 'b shows both')
    t.equal((await http(a, 'PUT', '/api/panel/shoutbox/config', { body: { maxShouts: 1 }, cookie })).status, 200)
    const seen = await eventually(() => messages(b), m => m.length === 1)
    t.ok(seen.ms < Infinity, `applied on b after ${seen.ms} ms`)
  })

  t.test('an SSE client on one receives a shout published on the other', async t => {
    const client = connectSse(`${b.url}/api/shoutbox/stream`)
    t.teardown(() => client.close())
    await client.next(e => e.event === 'ready')
    await http(a, 'POST', '/api/panel/shoutbox', { body: { message: 'across processes' }, cookie })
    const event = await client.next(e => e.event === 'shout-created', 15_000)
    t.match(JSON.parse(event.data), { message: 'across processes', username: 'admin', room: 'general' })
  })

  t.test('a lost notification link: nothing stale is served, and the link comes back by itself', async t => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await admin.connect()
    t.teardown(() => admin.end())
    const listenerOf = `shoutbox-listen:${storage.env.DATABASE_SCHEMA}`
    await messages(b)
    const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [listenerOf])
    t.equal(killed.rowCount, 2, 'both processes\' LISTEN connections cut')
    // Published while the links may be down: must still show up on b.
    await http(a, 'POST', '/api/panel/shoutbox', { body: { message: 'during the outage' }, cookie })
    const seen = await eventually(() => messages(b), m => m[0] === 'during the outage')
    t.ok(seen.ms < Infinity, `seen on b after ${seen.ms} ms`)
    const relinked = await eventually(async () => (await admin.query('select count(*)::int as n from pg_stat_activity where application_name = $1', [listenerOf])).rows[0].n as number, n => n === 2)
    t.equal(relinked.value, 2, 'both listening again')
    await http(a, 'POST', '/api/panel/shoutbox', { body: { message: 'after the outage' }, cookie })
    const after = await eventually(() => messages(b), m => m[0] === 'after the outage')
    t.ok(after.ms < Infinity, `seen on b after ${after.ms} ms`)
  })
})
