import { createHash } from 'node:crypto'
import t from 'tap'
import { ADMIN, build, login, sessionCookie, setUp, testHasher, userWith, type App } from '../../helpers/app.js'
import { testDatabase } from '../../helpers/database.js'

/** CONTRACT §12, sign-up: the member role, the site settings, POST /api/auth/signup. */

const error = (code: string, extras: Record<string, unknown> = {}) => ({ result: 'error', error: code, ...extras })
const MEMBER = { id: 2, name: 'member' }

let nextAddress = 1
/** A client address of its own, so one test's sign-ups do not count against another's. */
const freshAddress = (): string => `198.51.100.${nextAddress++}`

function signUp (app: App, payload: Record<string, unknown>, remoteAddress = freshAddress()) {
  return app.inject({ method: 'POST', url: '/api/auth/signup', payload, remoteAddress })
}

const settings = (app: App, cookie: string, payload?: Record<string, unknown>) => payload === undefined
  ? app.inject({ url: '/api/panel/settings', headers: { cookie } })
  : app.inject({ method: 'PUT', url: '/api/panel/settings', headers: { cookie }, payload })

const userId = async (app: App, username: string): Promise<number> => (await app.db('users').where({ username }).first<{ id: number }>('id')).id
const users = async (app: App): Promise<string[]> => (await app.db('users').orderBy('id').select<Array<{ username: string }>>('username')).map(u => u.username)

t.test('before setup: sign-up answers INSTALLATION_REQUIRED', async t => {
  const app = await build(t)
  const response = await signUp(app, { username: 'early', email: 'early@example.org', password: 'a long password' })
  t.same([response.statusCode, response.json()], [503, error('INSTALLATION_REQUIRED')])
})

t.test('the built-in member role exists from setup on', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const roles = await app.inject({ url: '/api/panel/roles', headers: { cookie: admin } })
  t.same(roles.json(), { result: 'ok', roles: [
    { id: 1, name: 'admin', permissions: ['*'], builtin: true },
    { id: 2, name: 'member', permissions: ['addon.shoutbox.post', 'addon.shoutbox.upload'], builtin: true }
  ] }, 'holding the addon permission its manifest marks "default": true')

  t.test('its permissions are the site\'s to choose; its name and the panel are not', async t => {
    const put = (payload: Record<string, unknown>) => app.inject({ method: 'PUT', url: '/api/panel/roles/2', headers: { cookie: admin }, payload })
    const none = await put({ name: 'member', permissions: [] })
    t.same([none.statusCode, none.json()], [200, { result: 'ok', role: { id: 2, name: 'member', permissions: [], builtin: true } }])
    for (const [payload, why] of [
      [{ name: 'member', permissions: ['panel.access'] }, 'panel access'],
      [{ name: 'member', permissions: ['addon.shoutbox.post', 'panel.access', 'panel.manage.users'] }, 'panel access among others'],
      [{ name: 'citizens', permissions: [] }, 'a new name']
    ] as const) {
      const response = await put(payload)
      t.same([response.statusCode, response.json()], [403, error('ROLE_IS_BUILT_IN')], why)
    }
    const admins = await app.inject({ method: 'PUT', url: '/api/panel/roles/1', headers: { cookie: admin }, payload: { name: 'admin', permissions: ['panel.access'] } })
    t.same([admins.statusCode, admins.json()], [403, error('ROLE_IS_BUILT_IN')], 'the admin role is still unchangeable')
    const back = await put({ name: 'member', permissions: ['addon.shoutbox.post'] })
    t.same(back.json().role.permissions, ['addon.shoutbox.post'])
  })
})

t.test('a default permission is granted once: one an administrator took away stays away after a restart', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const first = await build(t, { db })
  const admin = await setUp(first)
  await first.inject({ method: 'PUT', url: '/api/panel/roles/2', headers: { cookie: admin }, payload: { name: 'member', permissions: [] } })
  await first.close()
  const second = await build(t, { db })
  const roles = await second.inject({ url: '/api/panel/roles', headers: { cookie: admin } })
  t.same(roles.json().roles[1], { id: 2, name: 'member', permissions: [], builtin: true })
  t.same(await second.db('default_grants').select('node').orderBy('node'), [{ node: 'addon.shoutbox.post' }, { node: 'addon.shoutbox.upload' }])
})

t.test('the site settings: off by default, for panel.manage.settings only', async t => {
  const app = await build(t)
  const admin = await setUp(app)

  t.test('GET: sign-up off, sign-ups get the member role; the roles that may be chosen', async t => {
    await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'staff', permissions: ['panel.access'] } })
    await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'regulars', permissions: ['addon.shoutbox.post'] } })
    const response = await settings(app, admin)
    t.same([response.statusCode, response.json()], [200, { result: 'ok', signUp: false, defaultRoleId: 2, activityKeepDays: null, erasure: 'anonymise', verifyEmail: false, roles: [MEMBER, { id: 4, name: 'regulars' }] }])
    const open = await app.inject({ url: '/api/auth/signup' })
    t.same([open.statusCode, open.json()], [200, { result: 'ok', signUp: false }], 'anyone may ask whether sign-up is open')
  })

  t.test('who may read and change them', async t => {
    const panelOnly = await userWith(app, admin, 'helper', ['panel.access'])
    const manager = await userWith(app, admin, 'manager', ['panel.access', 'panel.manage.settings'])
    const anonymous = await app.inject({ method: 'PUT', url: '/api/panel/settings', payload: { signUp: true } })
    t.same([anonymous.statusCode, anonymous.json()], [401, error('NOT_LOGGED_IN')])
    for (const cookie of [panelOnly]) {
      for (const response of [await settings(app, cookie), await settings(app, cookie, { signUp: true })]) {
        t.same([response.statusCode, response.json()], [403, error('NO_PERMISSION')])
      }
    }
    const changed = await settings(app, manager, { signUp: true })
    t.same([changed.statusCode, changed.json()], [200, { result: 'ok', signUp: true, defaultRoleId: 2, activityKeepDays: null, erasure: 'anonymise', verifyEmail: false }])
    // "regulars" holds addon.shoutbox.post, which the manager does not: choosing it would
    // hand that permission out through sign-ups (to a second account of the manager too).
    const beyond = await settings(app, manager, { defaultRoleId: 4 })
    t.same([beyond.statusCode, beyond.json()], [403, error('NO_PERMISSION')], 'only a role whose permissions the caller holds')
    const off = await settings(app, manager, { signUp: false })
    t.same(off.json(), { result: 'ok', signUp: false, defaultRoleId: 2, activityKeepDays: null, erasure: 'anonymise', verifyEmail: false })
  })

  t.test('defaultRoleId: an existing role that does not open the panel', async t => {
    const cases: Array<[Record<string, unknown>, number, Record<string, unknown>]> = [
      [{ defaultRoleId: 1 }, 400, error('DEFAULT_ROLE_NOT_ALLOWED')],
      [{ defaultRoleId: 3 }, 400, error('DEFAULT_ROLE_NOT_ALLOWED')],
      [{ defaultRoleId: 999 }, 400, error('UNKNOWN_ROLE')],
      [{ defaultRoleId: 0 }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/defaultRoleId must be >= 1' })],
      [{ defaultRoleId: '4' }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/defaultRoleId must be integer' })],
      [{ signUp: 'yes' }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/signUp must be boolean' })],
      [{}, 400, error('BAD_REQUEST', { bodyValidationError: 'body must NOT have fewer than 1 properties' })]
    ]
    for (const [payload, status, body] of cases) {
      const response = await settings(app, admin, payload)
      t.same([response.statusCode, response.json()], [status, body], JSON.stringify(payload))
    }
    t.same((await settings(app, admin)).json().defaultRoleId, 2, 'unchanged')
    const chosen = await settings(app, admin, { defaultRoleId: 4, signUp: true })
    t.same([chosen.statusCode, chosen.json()], [200, { result: 'ok', signUp: true, defaultRoleId: 4, activityKeepDays: null, erasure: 'anonymise', verifyEmail: false }])
    const entry = await app.db('activity_logs').where({ type: 'UPDATED_SETTINGS' }).orderBy('id', 'desc').first<{ username: string, details: unknown }>('username', 'details')
    t.same(entry, { username: 'admin', details: { defaultRoleId: 4, signUp: true } }, 'logged with what was changed')
    const feed = await app.inject({ url: '/api/panel/logs/activity?locale=tr', headers: { cookie: admin } })
    t.equal(feed.json().logs[0].text, 'admin site ayarlarını değiştirdi')
  })
})

t.test('POST /api/auth/signup', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const account = { username: 'ayse', email: 'ayse@example.org', password: 'a long password' }

  t.test('closed by default → SIGN_UP_CLOSED, nobody created', async t => {
    const response = await signUp(app, account)
    t.same([response.statusCode, response.json()], [403, error('SIGN_UP_CLOSED')])
    t.same(await users(app), ['admin'])
  })

  t.test('open: the account is made with the member role and signed in', async t => {
    await settings(app, admin, { signUp: true })
    const response = await signUp(app, { ...account, roleId: 1, role: 'admin', permissions: ['*'] })
    t.same([response.statusCode, response.json()], [200, { result: 'ok', user: { id: 2, username: 'ayse', role: MEMBER } }], 'a forged role in the body is ignored')
    const cookie = sessionCookie(response)
    const me = await app.inject({ url: '/api/auth/me', headers: { cookie } })
    t.same(me.json(), { result: 'ok', user: { id: 2, username: 'ayse', role: MEMBER, permissions: ['addon.shoutbox.post', 'addon.shoutbox.upload'] } })
    const panel = await app.inject({ url: '/api/panel/logs/activity', headers: { cookie } })
    t.same([panel.statusCode, panel.json()], [403, error('NO_PERMISSION')], 'a member has no panel access')
    const stored = await app.db('users').where({ username: 'ayse' }).first<{ password_hash: string }>('password_hash')
    t.ok(await testHasher.verify('a long password', stored.password_hash), 'the password is stored as a hash')
    const entry = await app.db('activity_logs').where({ type: 'SIGNED_UP' }).first<{ user_id: number, username: string, details: unknown }>('user_id', 'username', 'details')
    t.same(entry, { user_id: 2, username: 'ayse', details: {} }, 'the feed shows who joined')
    t.equal((await login(app, 'ayse@example.org', 'a long password')).startsWith('shoutbox_session='), true, 'and can sign in later')
  })

  t.test('the account rules of the panel: clear errors, nothing created', async t => {
    const cases: Array<[Record<string, unknown>, number, Record<string, unknown>]> = [
      [{ username: 'AYSE', email: 'other@example.org' }, 409, error('USERNAME_TAKEN')],
      [{ username: 'ayse2', email: 'Ayse@Example.org' }, 409, error('EMAIL_TAKEN')],
      [{ username: 'admin', email: 'x@example.org' }, 409, error('USERNAME_TAKEN')],
      [{ username: 'b' }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/username must NOT have fewer than 3 characters' })],
      [{ username: '<script>' }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/username must match pattern "^[A-Za-z0-9_-]+$"' })],
      [{ username: 'bob', password: 'short' }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/password must NOT have fewer than 8 characters' })],
      [{ username: 'bob', email: 'nope' }, 400, error('BAD_REQUEST', { bodyValidationError: 'body/email must match pattern "^[^\\s@]+@[^\\s@]+$"' })]
    ]
    for (const [payload, status, body] of cases) {
      const response = await signUp(app, { ...account, ...payload })
      t.same([response.statusCode, response.json()], [status, body], JSON.stringify(payload))
    }
    t.same(await users(app), ['admin', 'ayse'])
  })

  t.test('the role chosen in the settings; never one that has since opened the panel', async t => {
    const regulars = await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: 'regulars', permissions: ['addon.shoutbox.post'] } })
    const id = regulars.json().role.id as number
    await settings(app, admin, { defaultRoleId: id })
    const joined = await signUp(app, { username: 'bora', email: 'bora@example.org', password: 'a long password' })
    t.same(joined.json(), { result: 'ok', user: { id: await userId(app, 'bora'), username: 'bora', role: { id, name: 'regulars' } } })
    await app.inject({ method: 'PUT', url: `/api/panel/roles/${id}`, headers: { cookie: admin }, payload: { name: 'regulars', permissions: ['panel.access'] } })
    const later = await signUp(app, { username: 'cem', email: 'cem@example.org', password: 'a long password' })
    t.same(later.json(), { result: 'ok', user: { id: await userId(app, 'cem'), username: 'cem', role: MEMBER } }, 'the member role instead')
  })

  t.test('a deleted member\'s username is retired: nobody signs up as them, to seem to have written what they wrote', async t => {
    const cem = await userId(app, 'cem')
    const deleted = await app.inject({ method: 'DELETE', url: `/api/panel/users/${cem}`, headers: { cookie: admin } })
    t.equal(deleted.statusCode, 200)
    for (const username of ['cem', 'CEM', 'Cem']) {
      const response = await signUp(app, { username, email: `${username}2@example.org`, password: 'a long password' })
      t.same([response.statusCode, response.json()], [409, error('USERNAME_TAKEN')], username)
    }
    t.notOk((await users(app)).some(name => name.toLowerCase() === 'cem'), 'nobody created')
    t.same(await app.db('retired_usernames').select('username'), [{ username: createHash('sha256').update('cem').digest('hex') }], 'kept as the hash of the lower-cased name, not the name')
  })

  t.test('closed again: refused again', async t => {
    await settings(app, admin, { signUp: false })
    const response = await signUp(app, { username: 'late', email: 'late@example.org', password: 'a long password' })
    t.same([response.statusCode, response.json()], [403, error('SIGN_UP_CLOSED')])
    await settings(app, admin, { signUp: true })
  })

  t.test('a burst of 20 sign-ups from one address: 5 accounts an hour, the rest TOO_MANY_REQUESTS with Retry-After', async t => {
    const before = (await users(app)).length
    const address = '203.0.113.7'
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      signUp(app, { username: `farm${i}`, email: `farm${i}@example.org`, password: 'a long password' }, address)))
    t.equal(answers.filter(a => a.statusCode === 200).length, 5, 'five made')
    const refused = answers.filter(a => a.statusCode === 429)
    t.equal(refused.length, 15)
    for (const answer of refused) {
      t.same(answer.json(), error('TOO_MANY_REQUESTS'))
      t.match(answer.headers['retry-after'], /^(3599|3600)$/, 'until the hour is over')
    }
    t.equal((await users(app)).length, before + 5, 'exactly five accounts')
    const failedToo = await signUp(app, { username: 'ayse', email: 'ayse@example.org', password: 'a long password' }, address)
    t.same([failedToo.statusCode, failedToo.json()], [429, error('TOO_MANY_REQUESTS')], 'checked before anything else is looked at')
    // Attempts sent at once: the one that opened the window read the clock after this one.
    await app.db('address_quotas').where({ key: `sign-up:${await app.identity.addresses.of(address)}` }).update({ window_started_at: Date.now() + 2000 })
    const overlapping = await signUp(app, { username: 'farm98', email: 'farm98@example.org', password: 'a long password' }, address)
    t.same([overlapping.statusCode, overlapping.headers['retry-after']], [429, '3600'], 'never told to wait longer than the hour')
    const elsewhere = await signUp(app, { username: 'neighbour', email: 'neighbour@example.org', password: 'a long password' })
    t.equal(elsewhere.statusCode, 200, 'another address is not held back')
    await app.db('address_quotas').where({ key: `sign-up:${await app.identity.addresses.of(address)}` }).update({ window_started_at: Date.now() - 3_600_001 })
    const nextHour = await signUp(app, { username: 'farm99', email: 'farm99@example.org', password: 'a long password' }, address)
    t.equal(nextHour.statusCode, 200, 'an hour later the address may sign up again')
  })

  t.test('one IPv6 /64 is one client: its addresses share the quota; another /64 does not', async t => {
    const answers = []
    for (let i = 1; i <= 6; i++) answers.push(await signUp(app, { username: `six${i}`, email: `six${i}@example.org`, password: 'a long password' }, `2001:db8:7:7::${i}`))
    t.same(answers.map(a => a.statusCode), [200, 200, 200, 200, 200, 429], 'five from the /64, whichever its addresses')
    t.equal((await signUp(app, { username: 'next64', email: 'next64@example.org', password: 'a long password' }, '2001:db8:7:8::1')).statusCode, 200)
    const keys = [`sign-up:${await app.identity.addresses.of('2001:db8:7:7::1')}`, `sign-up:${await app.identity.addresses.of('2001:db8:7:8::1')}`]
    t.same((await app.db('address_quotas').whereIn('key', keys).pluck('key')).sort(), keys.sort(), 'kept by /64, as the HMAC of the day')
    t.same(await app.db('address_quotas').where('key', 'like', '%2001:db8%').pluck('key'), [], 'the address itself nowhere')
  })

  t.test('a member role that opens the panel (a staff role named "member" before the upgrade) closes sign-up instead', async t => {
    await settings(app, admin, { defaultRoleId: MEMBER.id })
    await app.db('roles').where({ id: MEMBER.id }).update({ permissions: JSON.stringify(['panel.access', 'addon.shoutbox.post']) })
    t.teardown(async () => { await app.db('roles').where({ id: MEMBER.id }).update({ permissions: JSON.stringify(['addon.shoutbox.post', 'addon.shoutbox.upload']) }) })
    const before = await users(app)
    const response = await signUp(app, { username: 'stranger', email: 'stranger@example.org', password: 'a long password' })
    t.same([response.statusCode, response.json()], [403, error('SIGN_UP_CLOSED')])
    t.same(await users(app), before, 'nobody created')
  })

  t.test('the administrator still signs in as before', async t => {
    t.ok((await login(app, ADMIN.username, ADMIN.password)).length > 20)
  })
})
