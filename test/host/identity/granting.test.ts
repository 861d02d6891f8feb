import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { ADMIN, build, login, setUp, userWith } from '../../helpers/app.js'
import { client } from '../../helpers/identity.js'

const SHOUTBOX = 'addon.shoutbox.manage.shoutbox'
const NO_PERMISSION = { result: 'error', error: 'NO_PERMISSION' }

const table = (app: FastifyInstance, name: string) => app.db(name).orderBy(name === 'sessions' ? 'token_hash' : 'id').select()

/**
 * Everyone who could change identities, each one step below the admin: the attacks
 * below are theirs. Each test asserts the refusal and that the database did not move.
 */
t.test('granting: nobody gives more than they hold', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const asAdmin = client(app, admin)
  // Role 2 is the built-in member role. Role 3 and user 2: manages users only. Role 4 and user 3: manages roles only.
  const usersManager = client(app, await userWith(app, admin, 'usermgr', ['panel.access', 'panel.manage.users']))
  const rolesManager = client(app, await userWith(app, admin, 'rolemgr', ['panel.access', 'panel.manage.roles']))
  // Role 5 holds a node neither manager holds; role 6 holds only what both hold.
  t.same((await asAdmin('POST', '/api/panel/roles', { name: 'Mods', permissions: ['panel.access', SHOUTBOX] }))[0], 200)
  t.same((await asAdmin('POST', '/api/panel/roles', { name: 'Helpers', permissions: ['panel.access'] }))[0], 200)
  t.same((await asAdmin('POST', '/api/panel/users', { username: 'mod', email: 'mod@example.org', password: 'a long password', roleId: 5 }))[0], 200)
  const newUser = (username: string, roleId: number) => ({ username, email: `${username}@example.org`, password: 'a long password', roleId })

  t.test('a users manager gives nobody the admin role: 403, no user created', async t => {
    const before = await table(app, 'users')
    t.same(await usersManager('POST', '/api/panel/users', newUser('sneaky', 1)), [403, NO_PERMISSION])
    t.same(await table(app, 'users'), before)
  })

  t.test('a users manager gives nobody a role holding a node the manager lacks', async t => {
    const before = await table(app, 'users')
    t.same(await usersManager('POST', '/api/panel/users', newUser('sneaky', 4)), [403, NO_PERMISSION])
    t.same(await table(app, 'users'), before)
  })

  t.test('a users manager gives a role within their own permissions, their own role too', async t => {
    for (const [username, roleId] of [['helper', 6], ['usermgr2', 3]] as const) {
      const [status, body] = await usersManager('POST', '/api/panel/users', newUser(username, roleId))
      const user = body.user as { id: number, createdAt: number }
      t.same([status, body], [200, {
        result: 'ok', user: { id: user.id, username, email: `${username}@example.org`, roleId, disabled: false, bot: false, createdAt: user.createdAt }
      }])
      t.ok(Math.abs(user.createdAt - Date.now()) < 60_000, 'createdAt is now, in ms')
    }
  })

  t.test('a roles manager cannot add a permission to their own role: 403, the role unchanged', async t => {
    const before = await table(app, 'roles')
    t.same(await rolesManager('PUT', '/api/panel/roles/4', { name: 'rolemgr-role', permissions: ['panel.access', 'panel.manage.roles', 'panel.manage.users'] }), [403, NO_PERMISSION])
    t.same(await rolesManager('PUT', '/api/panel/roles/4', { name: 'renamed', permissions: ['panel.access', 'panel.manage.roles'] }), [403, NO_PERMISSION], 'nor change it at all')
    t.same(await table(app, 'roles'), before)
    t.same(await rolesManager('GET', '/api/panel/users'), [403, NO_PERMISSION], 'still no users permission')
  })

  t.test('a roles manager cannot create a role with a node they lack: 403, no role created', async t => {
    const before = await table(app, 'roles')
    t.same(await rolesManager('POST', '/api/panel/roles', { name: 'Escalate', permissions: ['panel.access', 'panel.manage.users'] }), [403, NO_PERMISSION])
    t.same(await rolesManager('POST', '/api/panel/roles', { name: 'Escalate', permissions: [SHOUTBOX] }), [403, NO_PERMISSION])
    t.same(await table(app, 'roles'), before)
  })

  t.test('a roles manager cannot change a role holding a node they lack, not even to take it away', async t => {
    const before = await table(app, 'roles')
    t.same(await rolesManager('PUT', '/api/panel/roles/5', { name: 'Mods', permissions: ['panel.access'] }), [403, NO_PERMISSION])
    t.same(await rolesManager('PUT', '/api/panel/roles/6', { name: 'Helpers', permissions: ['panel.access', SHOUTBOX] }), [403, NO_PERMISSION], 'nor add one')
    t.same(await table(app, 'roles'), before)
  })

  t.test('a roles manager creates and changes roles within their own permissions', async t => {
    t.same(await rolesManager('POST', '/api/panel/roles', { name: 'Role keepers', permissions: ['panel.manage.roles'] }), [200, {
      result: 'ok', role: { id: 7, name: 'Role keepers', permissions: ['panel.manage.roles'], builtin: false }
    }])
    t.same(await rolesManager('PUT', '/api/panel/roles/7', { name: 'Role keepers', permissions: ['panel.access', 'panel.manage.roles'] }), [200, {
      result: 'ok', role: { id: 7, name: 'Role keepers', permissions: ['panel.access', 'panel.manage.roles'], builtin: false }
    }])
    t.same(await rolesManager('PUT', '/api/panel/roles/1', { name: 'admin', permissions: [] }), [403, { result: 'error', error: 'ROLE_IS_BUILT_IN' }])
  })

  t.test('a users manager cannot change their own role, even to one they may give', async t => {
    const before = await table(app, 'users')
    t.same(await usersManager('PUT', '/api/panel/users/2', { roleId: 6 }), [403, NO_PERMISSION])
    t.same(await usersManager('PUT', '/api/panel/users/2', { roleId: 1 }), [403, NO_PERMISSION])
    t.same(await table(app, 'users'), before)
  })

  t.test('a users manager cannot give another user a role holding a node they lack, nor the admin role', async t => {
    const before = await table(app, 'users')
    const helper = (await table(app, 'users')).find(u => u.username === 'helper')!
    t.same(await usersManager('PUT', `/api/panel/users/${helper.id}`, { roleId: 5 }), [403, NO_PERMISSION])
    t.same(await usersManager('PUT', `/api/panel/users/${helper.id}`, { roleId: 1 }), [403, NO_PERMISSION])
    t.same(await table(app, 'users'), before)
  })

  t.test('a users manager cannot touch an administrator: role, disable, password, delete', async t => {
    const before = { users: await table(app, 'users'), sessions: await table(app, 'sessions') }
    for (const change of [{ roleId: 3 }, { disabled: true }, { password: 'taken over now' }]) {
      t.same(await usersManager('PUT', '/api/panel/users/1', change), [403, NO_PERMISSION], JSON.stringify(change))
    }
    t.same(await usersManager('DELETE', '/api/panel/users/1'), [403, NO_PERMISSION])
    t.same({ users: await table(app, 'users'), sessions: await table(app, 'sessions') }, before)
    t.equal((await asAdmin('GET', '/api/auth/me'))[0], 200, 'the admin is still signed in')
    t.equal((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: ADMIN.password } })).statusCode, 200, 'with the same password')
  })

  t.test('a users manager cannot touch a user whose role holds more than theirs (no password takeover)', async t => {
    const before = { users: await table(app, 'users'), sessions: await table(app, 'sessions') }
    // User 3 manages roles; user 4 moderates the shoutbox: neither is within a users manager's permissions.
    for (const id of [3, 4]) {
      for (const change of [{ roleId: 6 }, { disabled: true }, { password: 'taken over now' }]) {
        t.same(await usersManager('PUT', `/api/panel/users/${id}`, change), [403, NO_PERMISSION], `${id} ${JSON.stringify(change)}`)
      }
      t.same(await usersManager('DELETE', `/api/panel/users/${id}`), [403, NO_PERMISSION])
    }
    t.same({ users: await table(app, 'users'), sessions: await table(app, 'sessions') }, before)
    t.equal((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'rolemgr', password: 'a long password' } })).statusCode, 200)
  })

  t.test('a users manager manages a user within their permissions', async t => {
    const helper = (await table(app, 'users')).find(u => u.username === 'helper')!
    const [status, body] = await usersManager('PUT', `/api/panel/users/${helper.id}`, { roleId: 3, disabled: true })
    t.same([status, body], [200, {
      result: 'ok', user: { id: helper.id, username: 'helper', email: 'helper@example.org', roleId: 3, disabled: true, bot: false, createdAt: Number(helper.created_at) }
    }])
    t.same(await usersManager('DELETE', `/api/panel/users/${helper.id}`), [200, { result: 'ok' }])
  })

  t.test('an administrator gives any role, the admin role included', async t => {
    const [status, body] = await asAdmin('POST', '/api/panel/users', newUser('second', 1))
    t.same([status, body], [200, {
      result: 'ok', user: { id: (body.user as { id: number }).id, username: 'second', email: 'second@example.org', roleId: 1, disabled: false, bot: false, createdAt: (body.user as { createdAt: number }).createdAt }
    }])
    const second = client(app, await login(app, 'second', 'a long password'))
    t.same(await second('PUT', '/api/panel/roles/5', { name: 'Mods', permissions: ['panel.access', 'panel.manage.users', SHOUTBOX] }), [200, {
      result: 'ok', role: { id: 5, name: 'Mods', permissions: ['panel.access', 'panel.manage.users', SHOUTBOX], builtin: false }
    }])
    t.same(await second('PUT', '/api/panel/users/4', { roleId: 1 }), [200, {
      result: 'ok', user: { id: 4, username: 'mod', email: 'mod@example.org', roleId: 1, disabled: false, bot: false, createdAt: Number((await table(app, 'users')).find(u => u.id === 4)!.created_at) }
    }])
  })
})
