import t from 'tap'
import { build, login, setUp, type App } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { connectSse } from '../helpers/sse.js'

/** Issue 17: the panel's overview — the board's shouts per day and live readers, the site's members. */

const PASSWORD = 'a long password'
const DAY_MS = 86_400_000
const error = (code: string) => ({ result: 'error', error: code })

async function account (app: App, admin: string, username: string, roleName: string): Promise<string> {
  const roles = (await app.inject({ url: '/api/panel/roles', headers: { cookie: admin } })).json().roles as Array<{ id: number, name: string }>
  const roleId = roles.find(role => role.name === roleName)!.id
  const created = await app.inject({ method: 'POST', url: '/api/panel/users', headers: { cookie: admin }, payload: { username, email: `${username}@example.org`, password: PASSWORD, roleId } })
  if (created.statusCode !== 200) throw new Error(created.body)
  return login(app, username, PASSWORD)
}

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

t.test('GET /api/panel/shoutbox/overview: 30 UTC days, oldest first, with the shouts kept of each', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  for (const message of ['one', 'two', 'three']) await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message } })
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  // Older shouts, written as they would have been stored then: 2 on the first day shown, 1 just before it.
  await app.db('shoutbox_shouts').insert([
    { message: 'a month ago', username: 'admin', date: today - 29 * DAY_MS + 5 },
    { message: 'a month ago too', username: 'admin', date: today - 29 * DAY_MS + DAY_MS - 1 },
    { message: 'too old', username: 'admin', date: today - 29 * DAY_MS - 1 }
  ])
  const response = await app.inject({ url: '/panel/api/shoutbox/overview', headers: { cookie: admin } })
  t.equal(response.statusCode, 200)
  const expected = Array.from({ length: 30 }, (_, i) => {
    const day = today - (29 - i) * DAY_MS
    return { day: utcDay(day), shouts: i === 0 ? 2 : i === 29 ? 3 : 0 }
  })
  t.same(response.json(), { result: 'ok', days: expected, readers: 0, mutes: 0, manyShouts: false, review: 0, words: 0 })
})

t.test('manyShouts: over 1,000 shouts kept (the settings page warns when maxShouts is unset then)', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const many = async (): Promise<unknown> => (await app.inject({ url: '/panel/api/shoutbox/overview', headers: { cookie: admin } })).json().manyShouts
  const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ message: `shout ${from + i}`, username: 'admin', date: Date.now() }))
  await app.db('shoutbox_shouts').insert(rows(0, 1000))
  t.equal(await many(), false, 'exactly 1,000: not over')
  await app.db('shoutbox_shouts').insert(rows(1000, 1))
  t.equal(await many(), true, '1,001')
  await app.db('shoutbox_shouts').where('id', '<=', 10).delete()
  t.equal(await many(), false, 'deleted ones do not count')
})

t.test('mutes: the members muted now, not those whose mute has ended or was lifted', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const ids: number[] = []
  for (const name of ['ayse', 'bora', 'cem']) {
    await account(app, admin, name, 'member')
    ids.push((await app.db('users').where({ username: name }).first<{ id: number }>('id')).id)
  }
  const mute = (userId: number, minutes: number | null) => app.inject({ method: 'POST', url: '/api/panel/shoutbox/mutes', headers: { cookie: admin }, payload: { userId, minutes } })
  const mutes = async (): Promise<number> => (await app.inject({ url: '/panel/api/shoutbox/overview', headers: { cookie: admin } })).json().mutes
  t.equal(await mutes(), 0)
  for (const [userId, minutes] of [[ids[0]!, 10], [ids[1]!, null], [ids[2]!, 60]] as const) t.equal((await mute(userId, minutes)).statusCode, 200)
  t.equal(await mutes(), 3)
  await app.db('shoutbox_mutes').where({ user_id: ids[0] }).update({ until: Date.now() - 1 })
  t.equal(await mutes(), 2, 'an ended mute is not counted')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/panel/shoutbox/mutes/${ids[1]}`, headers: { cookie: admin } })).statusCode, 200)
  t.equal(await mutes(), 1, 'nor a lifted one')
})

t.test('live readers: the streams open on this process now', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const streams = [connectSse(`${address}/api/shoutbox/stream`), connectSse(`${address}/api/shoutbox/stream`)]
  t.teardown(() => { for (const stream of streams) stream.close() })
  for (const stream of streams) await stream.next(e => e.event === 'ready')
  const readers = async (): Promise<number> => (await app.inject({ url: '/panel/api/shoutbox/overview', headers: { cookie: admin } })).json().readers
  t.equal(await readers(), 2)
  streams[0]!.close()
  await eventually(readers, n => n === 1) // the server hears the close in its own time
  t.equal(await readers(), 1, 'a closed stream is no longer counted')
})

t.test('who may not read the overview figures', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const member = await account(app, admin, 'ayse', 'member')
  const created = await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'helpers', permissions: ['panel.access'] } })
  t.equal(created.statusCode, 200)
  const helper = await account(app, admin, 'helper', 'helpers')
  const get = async (url: string, cookie?: string) => {
    const response = await app.inject({ url, ...(cookie === undefined ? {} : { headers: { cookie } }) })
    return [response.statusCode, response.json()]
  }
  for (const url of ['/panel/api/shoutbox/overview', '/api/panel/shoutbox/overview', '/panel/api/overview']) {
    t.same(await get(url), [401, error('NOT_LOGGED_IN')], `${url}: a visitor`)
    t.same(await get(url, member), [403, error('NO_PERMISSION')], `${url}: a member (no panel access)`)
    t.same(await get(url, 'shoutbox_session=' + 'x'.repeat(43)), [401, error('NOT_LOGGED_IN')], `${url}: a forged cookie`)
  }
  t.same(await get('/panel/api/shoutbox/overview', helper), [403, error('NO_PERMISSION')], 'the board\'s figures need MANAGE_SHOUTBOX')
  t.same(await get('/panel/api/overview', helper), [200, { result: 'ok', members: 1, accounts: 3 }], 'the site\'s figures need panel access only')
  const fresh = await build(t)
  const before = await fresh.inject({ url: '/panel/api/overview' })
  t.same([before.statusCode, before.json()], [503, error('INSTALLATION_REQUIRED')], 'before setup')
})

t.test('GET /api/panel/overview: active accounts with the member role, and every active person\'s account', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const figures = async (): Promise<{ members: number, accounts: number }> => (await app.inject({ url: '/panel/api/overview', headers: { cookie: admin } })).json()
  const count = async (): Promise<number> => (await figures()).members
  t.equal(await count(), 0, 'the administrator is not a member')
  t.equal((await figures()).accounts, 1, 'but has an account')
  await account(app, admin, 'ayse', 'member')
  await account(app, admin, 'mehmet', 'member')
  await account(app, admin, 'zeynep', 'member')
  t.equal(await count(), 3)
  const users = (await app.inject({ url: '/api/panel/users', headers: { cookie: admin } })).json().users as Array<{ id: number, username: string }>
  const zeynep = users.find(user => user.username === 'zeynep')!
  const moderators = (await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'moderators', permissions: ['panel.access'] } })).json().role as { id: number }
  const moved = await app.inject({ method: 'PUT', url: `/api/panel/users/${zeynep.id}`, headers: { cookie: admin }, payload: { roleId: moderators.id } })
  t.equal(moved.statusCode, 200, moved.body)
  t.same(await figures(), { result: 'ok', members: 2, accounts: 4 }, 'a sign-up made a moderator leaves the member figure, not the accounts')
  const mehmet = users.find(user => user.username === 'mehmet')!
  await app.inject({ method: 'PUT', url: `/api/panel/users/${mehmet.id}`, headers: { cookie: admin }, payload: { disabled: true } })
  t.same(await figures(), { result: 'ok', members: 1, accounts: 3 }, 'a disabled account is counted in neither')
})

t.test('a burst of overview requests: each answered alike, none fails', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message: 'hi' } })
  const answers = await Promise.all(Array.from({ length: 40 }, () => app.inject({ url: '/panel/api/shoutbox/overview', headers: { cookie: admin } })))
  t.same(new Set(answers.map(answer => answer.statusCode)), new Set([200]))
  t.equal(new Set(answers.map(answer => answer.body)).size, 1, 'the same figures for all')
})
