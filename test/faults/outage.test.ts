import { randomBytes } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { openDatabase } from '../../src/host/database/connect.js'
import { ADMIN, build, setUp } from '../helpers/app.js'
import { DB_KIND, TEST_DATABASE_URL } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { freePort, http, serverStorage, startServer } from '../helpers/server.js'
import { TcpProxy } from '../helpers/tcp-proxy.js'
import type { Shout } from '../helpers/types.js'

t.test('a PostgreSQL outage: 503 within seconds, health says so, recovery without a restart',
  { skip: DB_KIND !== 'postgres' && 'needs PostgreSQL: the embedded database cannot go away' }, async t => {
    const target = new URL(TEST_DATABASE_URL!)
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) }, await freePort())
    await proxy.start()
    t.teardown(() => proxy.cut())
    const storage = await serverStorage(t)
    const viaProxy = new URL(TEST_DATABASE_URL!)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    const server = await startServer(t, { env: { ...storage.env, DATABASE_URL: viaProxy.href } })
    await http(server, 'POST', '/api/setup/finish', { body: ADMIN })
    const cookie = (await http(server, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })).cookie!
    t.equal((await http(server, 'POST', '/panel/api/shoutbox', { body: { message: 'before' }, cookie })).status, 200)

    // Requests in flight when the database goes away.
    const load = Array.from({ length: 8 }, () => http(server, 'POST', '/panel/api/shoutbox', { body: { message: 'during' }, cookie }))
    await proxy.cut()
    const duringLoad = await Promise.all(load)
    t.ok(duringLoad.every(a => a.status === 200 || a.status === 503), `in-flight answers: ${duringLoad.map(a => a.status).join(', ')}`)

    for (const [method, url] of [['GET', '/api/shoutbox/list'], ['POST', '/panel/api/shoutbox'], ['GET', '/api/auth/me']] as const) {
      const started = Date.now()
      const answer = await http(server, method, url, { cookie, ...(method === 'POST' ? { body: { message: 'while down' } } : {}) })
      const took = Date.now() - started
      t.same([answer.status, answer.body], [503, { result: 'error', error: 'SERVICE_UNAVAILABLE' }], `${method} ${url}`)
      // The promise is the 5 s connect timeout at most; 4 s more for a loaded machine.
      t.ok(took < 9000, `${method} ${url} answered in ${took} ms, no hanging`)
    }
    const health = await http(server, 'GET', '/api/health')
    t.same([health.status, health.body], [503, { result: 'error', error: 'SERVICE_UNAVAILABLE', database: 'down' }])

    await proxy.start()
    const healthy = await eventually(async () => (await http(server, 'GET', '/api/health')).status, status => status === 200)
    t.ok(healthy.ms < Infinity, `healthy again ${healthy.ms} ms after the database returned`)
    t.equal((await http(server, 'POST', '/panel/api/shoutbox', { body: { message: 'after' }, cookie })).status, 200, 'publishing works again')
    const listed = (await http(server, 'GET', '/api/shoutbox/list')).body!.shouts as Shout[]
    t.equal(listed[0]!.message, 'after', 'and the list is current (no stale cache)')
  })

/** knex's own lines about the connections this test has ended. */
const QUIET = { debug () {}, warn () {}, error () {} }

t.test('the database refusing connections (ALLOW_CONNECTIONS false): 503 SERVICE_UNAVAILABLE, never a 500; back once allowed',
  { skip: DB_KIND !== 'postgres' && 'needs PostgreSQL: the embedded database cannot refuse connections' }, async t => {
    // A database of its own: the others' tests keep theirs.
    const name = `shoutbox_refusing_${randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await admin.connect()
    await admin.query(`create database ${name}`)
    const endSessions = () => admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name])
    t.teardown(async () => {
      await admin.query(`alter database ${name} allow_connections true`)
      await endSessions()
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    })
    const url = new URL(TEST_DATABASE_URL!)
    url.pathname = `/${name}`
    const app = await build(t, { db: { schema: 'public', open: () => openDatabase({ url: url.href, schema: 'public', poolSize: 4, logger: QUIET }), drop: async () => {} } })
    const cookie = await setUp(app)
    const publish = (message: string) => app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message } })
    t.equal((await publish('before')).statusCode, 200)

    // What an operator does to keep clients out, and the sessions it ends.
    await admin.query(`alter database ${name} allow_connections false`)
    await endSessions()
    for (let i = 0; i < 3; i++) {
      const answer = await publish(`while refused ${i}`)
      t.same([answer.statusCode, answer.json()], [503, { result: 'error', error: 'SERVICE_UNAVAILABLE' }], `publish ${i + 1}`)
    }
    const list = await app.inject({ url: '/api/shoutbox/archive' })
    t.same([list.statusCode, list.json()], [503, { result: 'error', error: 'SERVICE_UNAVAILABLE' }], 'the archive')
    const health = await app.inject({ url: '/api/health' })
    t.same([health.statusCode, health.json()], [503, { result: 'error', error: 'SERVICE_UNAVAILABLE', database: 'down' }])

    await admin.query(`alter database ${name} allow_connections true`)
    const back = await eventually(async () => (await publish('after')).statusCode, status => status === 200)
    t.ok(back.ms < Infinity, `publishing again ${back.ms} ms after connections were allowed`)
    const stored = await app.db('shoutbox_shouts').pluck('message')
    t.same(stored.filter((m: string) => m.startsWith('while refused')), [], 'nothing refused was stored')
  })
