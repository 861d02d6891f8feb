import { createHash } from 'node:crypto'
import t from 'tap'
import { UsernameTaken } from '../../../src/host/errors.js'
import { PasswordHasher } from '../../../src/host/identity/passwords.js'
import { retireDeletedUsernames } from '../../../src/host/migrations/005-retired-usernames.js'
import { ADMIN, build, login, setUp } from '../../helpers/app.js'
import { DB_KIND } from '../../helpers/database.js'
import { eventually } from '../../helpers/eventually.js'
import { client, feed, signIn, snapshot, type Method } from '../../helpers/identity.js'
import { DEFAULT_REACTIONS, MODERATION_DEFAULTS } from '../../helpers/shouts.js'

const PASSWORD = 'a long password'
const NOT_LOGGED_IN = { result: 'error', error: 'NOT_LOGGED_IN' }
const INVALID_CREDENTIALS = { result: 'error', error: 'INVALID_CREDENTIALS' }
const LAST_ADMIN = { result: 'error', error: 'LAST_ADMIN' }

/** Counts hashes, to show a refused sign-in still costs one. */
class CountingHasher extends PasswordHasher {
  hashes = 0
  constructor () {
    super({ memoryCost: 1024, timeCost: 1, parallelism: 1 })
  }

  override async verify (password: string, stored: string): Promise<boolean> {
    this.hashes++
    return super.verify(password, stored)
  }

  override async verifyNobody (password: string): Promise<false> {
    this.hashes++
    return super.verifyNobody(password)
  }
}

t.test('managing users: role, disabled, password, delete', async t => {
  const hasher = new CountingHasher()
  const app = await build(t, { hasher })
  const admin = client(app, await setUp(app))
  t.equal((await admin('POST', '/api/panel/roles', { name: 'Mods', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox'] }))[0], 200)
  t.equal((await admin('POST', '/api/panel/roles', { name: 'Helpers', permissions: ['panel.access'] }))[0], 200)
  const [, created] = await admin('POST', '/api/panel/users', { username: 'alice', email: 'alice@example.org', password: PASSWORD, roleId: 3 })
  const alice = created.user as { id: number, createdAt: number }
  const aliceAs = (roleId: number, disabled: boolean) => ({ id: 2, username: 'alice', email: 'alice@example.org', roleId, disabled, bot: false, createdAt: alice.createdAt })
  const about = { user: 'alice', targetUserId: 2 }

  t.test('the list shows whether each user is disabled', async t => {
    const [status, body] = await admin('GET', '/api/panel/users')
    const adminRow = (body.users as Array<{ createdAt: number }>)[0]!
    t.same([status, body], [200, {
      result: 'ok',
      users: [
        { id: 1, username: 'admin', email: 'admin@example.org', roleId: 1, disabled: false, bot: false, createdAt: adminRow.createdAt },
        aliceAs(3, false)
      ]
    }])
  })

  t.test('bad requests: 400 before anything changes; no such user: 404', async t => {
    const before = await snapshot(app)
    const bad = (what: string) => ({ result: 'error', error: 'BAD_REQUEST', bodyValidationError: what })
    const cases: Array<[Method, string, Record<string, unknown> | undefined, number, Record<string, unknown>]> = [
      ['PUT', '/api/panel/users/2', {}, 400, bad('body must NOT have fewer than 1 properties')],
      ['PUT', '/api/panel/users/2', { disabled: 'yes' }, 400, bad('body/disabled must be boolean')],
      ['PUT', '/api/panel/users/2', { roleId: '2' }, 400, bad('body/roleId must be integer')],
      ['PUT', '/api/panel/users/2', { roleId: 0 }, 400, bad('body/roleId must be >= 1')],
      ['PUT', '/api/panel/users/2', { password: 'short' }, 400, bad('body/password must NOT have fewer than 8 characters')],
      ['PUT', '/api/panel/users/2', { roleId: 99 }, 400, { result: 'error', error: 'UNKNOWN_ROLE' }],
      ['PUT', '/api/panel/users/abc', { disabled: true }, 400, bad('params/id must match pattern "^[0-9]{1,15}$"')],
      ['PUT', '/api/panel/users/9999999999', { disabled: true }, 400, bad('params/id is out of range')],
      ['DELETE', '/api/panel/users/9999999999', undefined, 400, bad('params/id is out of range')],
      ['DELETE', '/api/panel/users/-1', undefined, 400, bad('params/id must match pattern "^[0-9]{1,15}$"')],
      ['PUT', '/api/panel/users/0', { disabled: true }, 404, { result: 'error', error: 'NOT_FOUND' }],
      ['PUT', '/api/panel/users/77', { password: 'a new password' }, 404, { result: 'error', error: 'NOT_FOUND' }],
      ['DELETE', '/api/panel/users/77', undefined, 404, { result: 'error', error: 'NOT_FOUND' }]
    ]
    for (const [method, url, payload, status, body] of cases) {
      t.same(await admin(method, url, payload), [status, body], `${method} ${url} ${JSON.stringify(payload)}`)
    }
    t.same(await snapshot(app), before)
  })

  t.test('disabling: the user\'s sessions end at once, and signing in answers like a wrong password', async t => {
    const session = client(app, await login(app, 'alice', PASSWORD))
    const other = client(app, await login(app, 'alice', PASSWORD))
    t.equal((await session('GET', '/api/auth/me'))[0], 200, 'remembered by this process')
    t.same(await admin('PUT', '/api/panel/users/2', { disabled: true }), [200, { result: 'ok', user: aliceAs(3, true) }])
    t.same(await session('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
    t.same(await other('GET', '/api/panel/logs/activity'), [401, NOT_LOGGED_IN])
    t.same(await app.db('sessions').where({ user_id: 2 }).select(), [], 'the rows are gone')

    const before = hasher.hashes
    t.same(await signIn(app, 'alice', PASSWORD), [401, INVALID_CREDENTIALS], 'the right password')
    t.equal(hasher.hashes - before, 1, 'still costs a hash')
    t.same(await signIn(app, 'alice@example.org', 'a wrong password'), [401, INVALID_CREDENTIALS], 'a wrong one: the same answer')
    t.same(await feed(app, (await login(app, 'admin', ADMIN.password)), 1), [
      { type: 'DISABLED_USER', userId: 1, username: 'admin', addonId: null, details: about, text: 'admin disabled the user alice' }
    ])
  })

  t.test('disabling again changes nothing and logs nothing', async t => {
    const before = await snapshot(app)
    t.same(await admin('PUT', '/api/panel/users/2', { disabled: true }), [200, { result: 'ok', user: aliceAs(3, true) }])
    t.same(await admin('PUT', '/api/panel/users/2', { nickname: 'ignored' }), [200, { result: 'ok', user: aliceAs(3, true) }], 'unknown properties are ignored')
    t.same(await snapshot(app), before)
  })

  t.test('enabling: the user signs in again', async t => {
    t.same(await admin('PUT', '/api/panel/users/2', { disabled: false }), [200, { result: 'ok', user: aliceAs(3, false) }])
    t.same(await signIn(app, 'alice', PASSWORD), [200, { result: 'ok', user: { id: 2, username: 'alice', role: { id: 3, name: 'Mods' } } }])
    t.same(await feed(app, (await login(app, 'admin', ADMIN.password)), 1, 'tr'), [
      { type: 'ENABLED_USER', userId: 1, username: 'admin', addonId: null, details: about, text: 'admin alice kullanıcısını etkinleştirdi' }
    ])
  })

  t.test('another role: the user\'s sessions end; signed in again, the new role applies', async t => {
    const session = client(app, await login(app, 'alice', PASSWORD))
    t.same(await session('GET', '/api/panel/shoutbox/config'), [200, { result: 'ok', maxShouts: null, maxMessageLength: 500, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300, maxPinned: 3, keepDays: null, reactions: DEFAULT_REACTIONS, ...MODERATION_DEFAULTS }])
    t.same(await admin('PUT', '/api/panel/users/2', { roleId: 4 }), [200, { result: 'ok', user: aliceAs(4, false) }])
    t.same(await session('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
    const again = client(app, await login(app, 'alice', PASSWORD))
    t.same(await again('GET', '/api/panel/shoutbox/config'), [403, { result: 'error', error: 'NO_PERMISSION' }])
    t.same(await feed(app, (await login(app, 'admin', ADMIN.password)), 1), [{
      type: 'CHANGED_USER_ROLE', userId: 1, username: 'admin', addonId: null,
      details: { ...about, role: 'Helpers', previousRole: 'Mods' }, text: 'admin gave alice the role Helpers (was Mods)'
    }])
  })

  t.test('a new password: the user\'s sessions end, the old password stops working; the log never holds it', async t => {
    const session = client(app, await login(app, 'alice', PASSWORD))
    t.same(await admin('PUT', '/api/panel/users/2', { password: 'set by the admin' }), [200, { result: 'ok', user: aliceAs(4, false) }])
    t.same(await session('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
    t.same(await signIn(app, 'alice', PASSWORD), [401, INVALID_CREDENTIALS])
    t.equal((await signIn(app, 'alice', 'set by the admin'))[0], 200)
    t.same(await feed(app, (await login(app, 'admin', ADMIN.password)), 1), [
      { type: 'SET_USER_PASSWORD', userId: 1, username: 'admin', addonId: null, details: about, text: 'admin set a new password for alice' }
    ])
    const stored = JSON.stringify(await app.db('activity_logs').select())
    t.notOk(stored.includes('set by the admin'), 'no password in the log')
    t.notOk(stored.includes('$argon2id$') || stored.includes('scrypt$'), 'nor a hash')
  })

  t.test('several changes at once: one entry each, in one transaction', async t => {
    t.same(await admin('PUT', '/api/panel/users/2', { roleId: 3, disabled: true, password: PASSWORD }), [200, { result: 'ok', user: aliceAs(3, true) }])
    t.same(await feed(app, (await login(app, 'admin', ADMIN.password)), 3), [
      { type: 'SET_USER_PASSWORD', userId: 1, username: 'admin', addonId: null, details: about, text: 'admin set a new password for alice' },
      { type: 'DISABLED_USER', userId: 1, username: 'admin', addonId: null, details: about, text: 'admin disabled the user alice' },
      { type: 'CHANGED_USER_ROLE', userId: 1, username: 'admin', addonId: null, details: { ...about, role: 'Mods', previousRole: 'Helpers' }, text: 'admin gave alice the role Mods (was Helpers)' }
    ], 'newest first')
    t.equal((await admin('PUT', '/api/panel/users/2', { disabled: false }))[0], 200)
  })

  t.test('deleting: the account and its sessions go; what it wrote in the log stays', async t => {
    const session = client(app, await login(app, 'alice', PASSWORD))
    t.same(await session('POST', '/api/panel/shoutbox', { message: 'from alice' }), [200, { result: 'ok' }])
    t.same(await admin('DELETE', '/api/panel/users/2'), [200, { result: 'ok' }])
    t.same(await session('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
    t.same(await app.db('sessions').where({ user_id: 2 }).select(), [])
    t.same(await signIn(app, 'alice', PASSWORD), [401, INVALID_CREDENTIALS])
    const [, list] = await admin('GET', '/api/panel/users')
    t.same((list.users as Array<{ username: string }>).map(u => u.username), ['admin'])
    const entries = await feed(app, (await login(app, 'admin', ADMIN.password)), 2)
    const erased = { ...about, user: 'deleted user', variant: 'erased' }
    t.same(entries, [
      { type: 'DELETED_USER', userId: 1, username: 'admin', addonId: null, details: erased, text: 'admin deleted an account (#2)' },
      { type: 'CREATED_SHOUT', userId: null, username: 'deleted user', addonId: 'shoutbox', details: { room: 'general', variant: 'erased' }, text: 'deleted user posted a shout (its text was erased)' }
    ], 'her entries stay under `deleted user`, without her text (CONTRACT §22)')
    const unchanged = await snapshot(app)
    t.same(await admin('POST', '/api/panel/users', { username: 'ALICE', email: 'alice2@example.org', password: PASSWORD, roleId: 3 }),
      [409, { result: 'error', error: 'USERNAME_TAKEN' }], 'her username is retired: no one else writes as alice')
    t.same(await snapshot(app), unchanged)
    t.same(await admin('DELETE', '/api/panel/users/2'), [404, { result: 'error', error: 'NOT_FOUND' }], 'once')
    t.same(await admin('PUT', '/api/panel/users/2', { disabled: false }), [404, { result: 'error', error: 'NOT_FOUND' }])
  })
})

const sha256 = (name: string): string => createHash('sha256').update(name).digest('hex')

t.test('accounts deleted before usernames were retired: the upgrade retires their names from the activity feed', async t => {
  const app = await build(t)
  const admin = client(app, await setUp(app))
  t.equal((await admin('POST', '/api/panel/users', { username: 'bob', email: 'bob@example.org', password: PASSWORD, roleId: 1 }))[0], 200)
  // What an earlier version left: the account gone, its name in DELETED_USER entries only.
  const deletedEarlier = (user: string, createdAt: number) => ({ type: 'DELETED_USER', user_id: 1, username: 'admin', details: JSON.stringify({ user, targetUserId: 9 }), created_at: createdAt })
  await app.db('activity_logs').insert([deletedEarlier('Carol', 1000), deletedEarlier('carol', 2000), deletedEarlier('bob', 3000)])
  await retireDeletedUsernames(app.db)
  t.same(await app.db('retired_usernames').orderBy('username').select('username', 'retired_at'), [{ username: sha256('carol'), retired_at: 2000 }],
    'carol, once, when last deleted; not bob, whose name someone holds now')
  t.same(await admin('POST', '/api/panel/users', { username: 'carol', email: 'carol@example.org', password: PASSWORD, roleId: 1 }),
    [409, { result: 'error', error: 'USERNAME_TAKEN' }])
  await retireDeletedUsernames(app.db)
  t.equal((await app.db('retired_usernames').select()).length, 1, 'running it again changes nothing')
})

t.test('a sign-up racing the deletion of that name: the name stays retired', async t => {
  const app = await build(t)
  const admin = client(app, await setUp(app))
  const [, created] = await admin('POST', '/api/panel/users', { username: 'dora', email: 'dora@example.org', password: PASSWORD, roleId: 1 })
  const deletion = await app.db.transaction()
  await app.identity.users.delete((created.user as { id: number }).id, deletion)
  const signUp = app.identity.users.create({ username: 'Dora', email: 'dora2@example.org', passwordHash: 'not used', roleId: 1 })
    .then(() => 'created', (error: unknown) => error instanceof UsernameTaken ? 'USERNAME_TAKEN' : error)
  // On PostgreSQL the insert now waits on the name's unique index for the deletion (on the
  // embedded database, for its one connection, which the deletion holds).
  if (DB_KIND === 'postgres') {
    const deleting = (await deletion.raw('select pg_backend_pid() as pid')).rows[0].pid as number
    const blocked = async (): Promise<number> => Number((await app.db.raw('select count(*) as n from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [deleting])).rows[0].n)
    t.ok((await eventually(blocked, n => n > 0)).ms < Infinity, 'the sign-up waits for the deletion')
  }
  await deletion.commit()
  t.equal(await signUp, 'USERNAME_TAKEN')
  t.same(await app.db('users').whereRaw('lower(username) = ?', ['dora']).select('id'), [], 'no account under the name')
})

t.test('the last active administrator', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const admin = client(app, cookie)
  t.equal((await admin('POST', '/api/panel/roles', { name: 'Helpers', permissions: ['panel.access'] }))[0], 200)

  t.test('cannot demote, disable or delete themselves: 409 LAST_ADMIN, nothing changed', async t => {
    const before = await snapshot(app)
    t.same(await admin('PUT', '/api/panel/users/1', { roleId: 3 }), [409, LAST_ADMIN])
    t.same(await admin('PUT', '/api/panel/users/1', { disabled: true }), [409, LAST_ADMIN])
    t.same(await admin('PUT', '/api/panel/users/1', { disabled: true, password: 'a new password' }), [409, LAST_ADMIN], 'nor with a password in the same request')
    t.same(await admin('DELETE', '/api/panel/users/1'), [409, LAST_ADMIN])
    t.same(await snapshot(app), before)
    t.equal((await admin('GET', '/api/auth/me'))[0], 200, 'still signed in')
  })

  t.test('nobody sets their own password here (the current one is asked for elsewhere)', async t => {
    const before = await snapshot(app)
    t.same(await admin('PUT', '/api/panel/users/1', { password: 'a new password' }), [403, { result: 'error', error: 'NO_PERMISSION' }])
    t.same(await admin('PUT', '/api/panel/users/1', { roleId: 1, disabled: false }), [200, {
      result: 'ok', user: { id: 1, username: 'admin', email: 'admin@example.org', roleId: 1, disabled: false, bot: false, createdAt: Number(before.users[0].created_at) }
    }], 'what does not change is no change')
    t.same(await snapshot(app), before)
  })

  t.test('with a second administrator: either may be disabled; a disabled one does not count', async t => {
    t.equal((await admin('POST', '/api/panel/users', { username: 'second', email: 'second@example.org', password: PASSWORD, roleId: 1 }))[0], 200)
    const second = client(app, await login(app, 'second', PASSWORD))
    t.same(await admin('PUT', '/api/panel/users/1', { roleId: 3 }), [403, { result: 'error', error: 'NO_PERMISSION' }], 'nobody changes their own role')
    t.same((await second('PUT', '/api/panel/users/1', { disabled: true }))[0], 200)
    t.same(await admin('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
    t.same(await second('PUT', '/api/panel/users/2', { disabled: true }), [409, LAST_ADMIN], 'now the second is the last')
    t.same(await second('DELETE', '/api/panel/users/2'), [409, LAST_ADMIN])
    t.same((await second('PUT', '/api/panel/users/1', { disabled: false }))[0], 200)
    const first = client(app, await login(app, 'admin', ADMIN.password))
    t.same(await first('PUT', '/api/panel/users/2', { roleId: 3 }), [200, {
      result: 'ok', user: { id: 2, username: 'second', email: 'second@example.org', roleId: 3, disabled: false, bot: false, createdAt: Number((await app.db('users').where({ id: 2 }).first()).created_at) }
    }])
    t.same(await first('DELETE', '/api/panel/users/2'), [200, { result: 'ok' }])
  })

  t.test('an administrator who disables themselves is signed out (the cookie is cleared)', async t => {
    const first = client(app, await login(app, 'admin', ADMIN.password))
    t.equal((await first('POST', '/api/panel/users', { username: 'third', email: 'third@example.org', password: PASSWORD, roleId: 1 }))[0], 200)
    const third = await login(app, 'third', PASSWORD)
    const response = await app.inject({ method: 'PUT', url: '/api/panel/users/3', headers: { cookie: third }, payload: { disabled: true } })
    t.equal(response.statusCode, 200)
    t.equal(response.cookies.find(c => c.name === 'shoutbox_session')?.value, '', 'cleared')
    t.same(await client(app, third)('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
  })

  t.test('two administrators disabling each other at once: one wins, the other is refused, one stays', async t => {
    const first = client(app, await login(app, 'admin', ADMIN.password))
    t.equal((await first('PUT', '/api/panel/users/3', { disabled: false }))[0], 200)
    for (let round = 1; round <= 5; round++) {
      const one = client(app, await login(app, 'admin', ADMIN.password))
      const three = client(app, await login(app, 'third', PASSWORD))
      await Promise.all([one('GET', '/api/auth/me'), three('GET', '/api/auth/me')])
      const answers = await Promise.all([one('PUT', '/api/panel/users/3', { disabled: true }), three('PUT', '/api/panel/users/1', { disabled: true })])
      const won = answers.findIndex(([status]) => status === 200)
      t.ok(won >= 0, `round ${round}: one succeeded`)
      const disabled = won === 0 ? 3 : 1
      const row = await app.db('users').where({ id: disabled }).first()
      t.same(answers[won], [200, {
        result: 'ok', user: { id: disabled, username: row.username, email: row.email, roleId: 1, disabled: true, bot: false, createdAt: Number(row.created_at) }
      }])
      // The other is refused by the rule or, when the winner committed first, is no longer signed in.
      const lost = answers[1 - won]!
      t.same(lost, lost[0] === 409 ? [409, LAST_ADMIN] : [401, NOT_LOGGED_IN], `round ${round}: the other refused`)
      t.same(await app.db('users').where({ role_id: 1, disabled: false }).select('id').then(rows => rows.length), 1, `round ${round}: one active administrator`)
      t.equal((await [one, three][won]!('PUT', `/api/panel/users/${disabled}`, { disabled: false }))[0], 200, 'the winner enables the other again')
    }
  })
})
