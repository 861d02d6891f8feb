import t from 'tap'
import { ADMIN } from '../helpers/app.js'
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
