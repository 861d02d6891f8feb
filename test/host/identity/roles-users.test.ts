import t from 'tap'
import { build, login, setUp, userWith } from '../../helpers/app.js'
import type { Tap } from '../../helpers/types.js'

/**
 * A fresh panel and its admin. With `moderators`, it also has the role 3 "Moderators" (2 is the built-in member role)
 * (panel access and MANAGE_SHOUTBOX); with `alice`, the user alice (id 2) holding it too.
 */
async function panel (t: Tap, { moderators = false, alice = false } = {}) {
  const app = await build(t)
  const admin = await setUp(app)
  const as = (cookie: string) => ({
    get: (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers: { cookie, ...headers } }),
    send: (method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>) => app.inject({ method, url, headers: { cookie }, payload })
  })
  const staged = async (url: string, payload: Record<string, unknown>): Promise<void> => {
    const response = await as(admin).send('POST', url, payload)
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.body}`)
  }
  if (moderators || alice) await staged('/api/panel/roles', { name: 'Moderators', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox'] })
  if (alice) await staged('/api/panel/users', { username: 'alice', email: 'alice@example.org', password: 'a long password', roleId: 3 })
  return { app, admin, as }
}

t.test('roles, users and permissions', async t => {
  // The shared panel is only read (its one change is refused); the subtests that create
  // roles or users stage a panel of their own, with what they build on.
  const { admin, as } = await panel(t)

  t.test('the permission catalogue: host and addon nodes, localised', async t => {
    const en = (await as(admin).get('/api/panel/permissions')).json()
    t.same(en.permissions.map((p: { node: string }) => p.node),
      ['panel.access', 'panel.manage.roles', 'panel.manage.users', 'panel.manage.addons', 'panel.manage.settings', 'panel.manage.webhooks', 'addon.shoutbox.manage.shoutbox', 'addon.shoutbox.post',
        'addon.shoutbox.upload', 'addon.shoutbox.room.general.post'], 'with the default room\'s own post node (made as the addon runs; everyone reads it, so no read node)')
    t.same(en.permissions.at(-1), {
      node: 'addon.shoutbox.room.general.post', key: 'addon.shoutbox.room.general.post', addonId: 'shoutbox',
      title: 'Post in the room General', description: 'Shout in the room General (general), when the room is posted in by this node'
    })
    t.same(en.permissions[6], {
      node: 'addon.shoutbox.manage.shoutbox', key: 'MANAGE_SHOUTBOX', addonId: 'shoutbox',
      title: 'Manage shoutbox', description: 'Post, edit and delete any shout, mute members in the shoutbox and change its settings.'
    })
    const tr = (await as(admin).get('/api/panel/permissions', { 'accept-language': 'tr-TR,tr;q=0.9,en;q=0.5' })).json()
    t.equal(tr.permissions[6].title, 'Duyuru panosunu yönet')
    t.equal(tr.permissions[0].title, 'Panel erişimi')
  })

  t.test('the admin role is built in and holds *; it cannot be changed', async t => {
    const roles = (await as(admin).get('/api/panel/roles')).json()
    t.same(roles, { result: 'ok', roles: [
      { id: 1, name: 'admin', permissions: ['*'], builtin: true },
      { id: 2, name: 'member', permissions: ['addon.shoutbox.post', 'addon.shoutbox.upload'], builtin: true }
    ] })
    const change = await as(admin).send('PUT', '/api/panel/roles/1', { name: 'admin', permissions: [] })
    t.same([change.statusCode, change.json()], [403, { result: 'error', error: 'ROLE_IS_BUILT_IN' }])
  })

  t.test('creating and changing a role', async t => {
    const { admin, as } = await panel(t)
    const created = await as(admin).send('POST', '/api/panel/roles', { name: ' Moderators ', permissions: ['panel.access'] })
    t.same([created.statusCode, created.json()], [200, { result: 'ok', role: { id: 3, name: 'Moderators', permissions: ['panel.access'], builtin: false } }])
    const duplicate = await as(admin).send('POST', '/api/panel/roles', { name: 'moderators', permissions: [] })
    t.same([duplicate.statusCode, duplicate.json()], [409, { result: 'error', error: 'ROLE_NAME_TAKEN' }])
    const unknown = await as(admin).send('POST', '/api/panel/roles', { name: 'Gods', permissions: ['*'] })
    t.same([unknown.statusCode, unknown.json()], [400, {
      result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'body/permissions has an unknown permission node "*"'
    }])
    const updated = await as(admin).send('PUT', '/api/panel/roles/3', { name: 'Moderators', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox'] })
    t.same(updated.json().role.permissions, ['panel.access', 'addon.shoutbox.manage.shoutbox'])
    const missing = await as(admin).send('PUT', '/api/panel/roles/99', { name: 'x', permissions: [] })
    t.same([missing.statusCode, missing.json()], [404, { result: 'error', error: 'NOT_FOUND' }])
  })

  t.test('creating users: rules and clear errors', async t => {
    const { admin, as } = await panel(t, { moderators: true })
    const create = (payload: Record<string, unknown>) => as(admin).send('POST', '/api/panel/users', {
      username: 'alice', email: 'alice@example.org', password: 'a long password', roleId: 3, ...payload
    })
    const created = await create({})
    t.equal(created.statusCode, 200)
    t.match(created.json(), { result: 'ok', user: { id: 2, username: 'alice', email: 'alice@example.org', roleId: 3 } })
    t.notOk('passwordHash' in created.json().user, 'never the hash')
    const cases: Array<[Record<string, unknown>, number, Record<string, unknown>]> = [
      [{ username: 'ALICE', email: 'other@example.org' }, 409, { error: 'USERNAME_TAKEN' }],
      [{ username: 'alice2', email: 'Alice@Example.org' }, 409, { error: 'EMAIL_TAKEN' }],
      [{ username: 'bob', email: 'bob@example.org', roleId: 77 }, 400, { error: 'UNKNOWN_ROLE' }],
      [{ username: 'b' }, 400, { error: 'BAD_REQUEST', bodyValidationError: 'body/username must NOT have fewer than 3 characters' }],
      [{ username: 'bob smith' }, 400, { error: 'BAD_REQUEST', bodyValidationError: 'body/username must match pattern "^[A-Za-z0-9_-]+$"' }],
      [{ username: 'bob', password: 'short' }, 400, { error: 'BAD_REQUEST', bodyValidationError: 'body/password must NOT have fewer than 8 characters' }],
      [{ username: 'bob', email: 'not-an-address' }, 400, { error: 'BAD_REQUEST', bodyValidationError: 'body/email must match pattern "^[^\\s@]+@[^\\s@]+$"' }]
    ]
    for (const [payload, status, body] of cases) {
      const response = await create(payload)
      t.same([response.statusCode, response.json()], [status, { result: 'error', ...body }], JSON.stringify(payload))
    }
    const users = (await as(admin).get('/api/panel/users')).json().users as Array<Record<string, unknown>>
    t.same(users.map(u => u.username), ['admin', 'alice'])
    t.notOk(users.some(u => 'passwordHash' in u || 'password_hash' in u))
  })

  t.test('role edits take effect on the next request', async t => {
    const { app, admin, as } = await panel(t, { alice: true })
    const alice = await login(app, 'alice', 'a long password')
    const publish = () => as(alice).send('POST', '/api/panel/shoutbox', { message: 'from alice' })
    t.same((await publish()).json(), { result: 'ok' })
    await as(admin).send('PUT', '/api/panel/roles/3', { name: 'Moderators', permissions: ['panel.access'] })
    t.same((await publish()).json(), { result: 'error', error: 'NO_PERMISSION' })
    await as(admin).send('PUT', '/api/panel/roles/3', { name: 'Moderators', permissions: [] })
    t.same((await as(alice).get('/api/panel/logs/activity')).json(), { result: 'error', error: 'NO_PERMISSION' }, 'panel access gone')
  })

  t.test('manage endpoints need their permission; the admin passes every check', async t => {
    const { app, admin, as } = await panel(t)
    const panelUser = await userWith(app, admin, 'carol', ['panel.access'])
    for (const url of ['/api/panel/roles', '/api/panel/users', '/api/panel/addons', '/api/panel/shoutbox/config']) {
      t.same((await as(panelUser).get(url)).json(), { result: 'error', error: 'NO_PERMISSION' }, url)
      t.equal((await as(admin).get(url)).statusCode, 200, url)
    }
    const manager = await userWith(app, admin, 'dave', ['panel.access', 'panel.manage.users'])
    t.equal((await as(manager).get('/api/panel/users')).statusCode, 200)
    t.equal((await as(manager).get('/api/panel/roles')).statusCode, 403)
  })
})
