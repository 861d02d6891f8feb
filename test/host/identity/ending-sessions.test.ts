import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { ADMIN, build, login, setUp } from '../../helpers/app.js'
import { DB_KIND, testDatabase } from '../../helpers/database.js'
import { eventually } from '../../helpers/eventually.js'
import { USER_SIGNED_OUT } from '../../../src/host/identity/sessions.js'

const me = async (app: FastifyInstance, cookie: string) => {
  const response = await app.inject({ url: '/api/auth/me', headers: { cookie } })
  return [response.statusCode, response.json()] as [number, Record<string, unknown>]
}

/** How long `app` took to refuse the session (Infinity if it never did within 15 s). */
const endedOn = async (app: FastifyInstance, cookie: string): Promise<number> =>
  (await eventually(async () => (await me(app, cookie))[0], status => status === 401)).ms

const PASSWORD = 'a long password'
const NOT_LOGGED_IN = { result: 'error', error: 'NOT_LOGGED_IN' }

/**
 * Two host processes (two apps, each with its own session memory and notification link)
 * on one PostgreSQL: a change made through one ends the user's sessions on the other,
 * even those the other remembers.
 */
t.test('ending a user\'s sessions reaches every process', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const b = await build(t, { db })
  const admin = await setUp(a)
  const put = async (id: number, payload: Record<string, unknown>) => {
    const response = await a.inject({ method: 'PUT', url: `/api/panel/users/${id}`, headers: { cookie: admin }, payload })
    return response.statusCode
  }
  const role = await a.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'Helpers', permissions: ['panel.access'] } })
  t.equal(role.statusCode, 200)
  const roleId = role.json().role.id as number
  const created = await a.inject({
    method: 'POST', url: '/api/panel/users', headers: { cookie: admin }, payload: { username: 'alice', email: 'alice@example.org', password: PASSWORD, roleId }
  })
  t.equal(created.statusCode, 200)
  const alice = { id: 2, username: 'alice', role: { id: roleId, name: 'Helpers' }, permissions: ['panel.access'] }
  /** Alice signs in through `b`, and `b` remembers her session. */
  const remembered = async (): Promise<string> => {
    const cookie = await login(b, 'alice', PASSWORD)
    t.same(await me(b, cookie), [200, { result: 'ok', user: alice }])
    t.same(await me(b, cookie), [200, { result: 'ok', user: alice }], 'from b\'s memory')
    return cookie
  }

  t.test('disabled on a: refused on b at once', async t => {
    const cookie = await remembered()
    t.equal(await put(2, { disabled: true }), 200)
    const ms = await endedOn(b, cookie)
    t.ok(ms < Infinity, `refused on b after ${ms} ms`)
    t.same(await me(b, cookie), [401, NOT_LOGGED_IN])
    t.equal(await put(2, { disabled: false }), 200)
  })

  t.test('a new password, another role, deletion on a: each ends the session on b', async t => {
    for (const change of [{ password: 'another long password' }, { roleId: 1 }]) {
      const cookie = await login(b, 'alice', 'password' in change ? PASSWORD : 'another long password')
      t.equal((await me(b, cookie))[0], 200)
      t.equal(await put(2, change), 200)
      const ms = await endedOn(b, cookie)
      t.ok(ms < Infinity, `${JSON.stringify(change)}: refused on b after ${ms} ms`)
    }
    const cookie = await login(b, 'alice', 'another long password')
    t.equal((await me(b, cookie))[0], 200)
    t.equal((await a.inject({ method: 'DELETE', url: '/api/panel/users/2', headers: { cookie: admin } })).statusCode, 200)
    const ms = await endedOn(b, cookie)
    t.ok(ms < Infinity, `deleted: refused on b after ${ms} ms`)
  })

  t.test('a password change on a ends the other sessions on b, and keeps its own on both', async t => {
    const current = await login(a, 'admin', ADMIN.password)
    const other = await login(b, 'admin', ADMIN.password)
    for (const [app, cookie] of [[a, current], [b, current], [b, other]] as const) t.equal((await me(app, cookie))[0], 200, 'remembered')
    const response = await a.inject({
      method: 'POST', url: '/api/auth/password', headers: { cookie: current }, payload: { currentPassword: ADMIN.password, newPassword: 'a new admin password' }
    })
    t.same([response.statusCode, response.json()], [200, { result: 'ok' }])
    const ms = await endedOn(b, other)
    t.ok(ms < Infinity, `the other session refused on b after ${ms} ms`)
    const user = { id: 1, username: 'admin', role: { id: 1, name: 'admin' }, permissions: ['*'] }
    t.same(await me(b, current), [200, { result: 'ok', user }], 'this one still works on b')
    t.same(await me(a, current), [200, { result: 'ok', user }], 'and on a')
  })
})

t.test('a sign-out notice that is not what the topic carries is dropped by every process; the next good one is heard', { skip: DB_KIND !== 'postgres' && 'two processes: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const b = await build(t, { db })
  const admin = await setUp(a)
  const heard: unknown[] = []
  b.identity.sessions.onEnd(ended => heard.push(ended))
  for (const garbage of ['not json', '{"userId":"1","keep":null}', '{"userId":1}', '[1]', 'null']) {
    await a.cluster.notify(USER_SIGNED_OUT, garbage)
  }
  await a.cluster.notifyJson(USER_SIGNED_OUT, { userId: 1, keep: null })
  // Heard in the order sent: once the good one has arrived, the others were read and dropped.
  await eventually(async () => heard.length, count => count > 0)
  t.same(heard, [{ userId: 1, keep: null }], 'b heard the good notice alone')
  t.equal((await me(b, admin))[0], 200, 'and goes on serving')
})
