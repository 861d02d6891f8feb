import { randomBytes, scrypt } from 'node:crypto'
import t from 'tap'
import { ADMIN, build, login, setUp } from '../../helpers/app.js'
import { client, feed, signIn, snapshot } from '../../helpers/identity.js'

const PASSWORD = 'a long password'
const NOT_LOGGED_IN = { result: 'error', error: 'NOT_LOGGED_IN' }
const INVALID_CREDENTIALS = { result: 'error', error: 'INVALID_CREDENTIALS' }

t.test('a signed-in user\'s own password: POST /api/auth/password', async t => {
  const app = await build(t)
  const admin = client(app, await setUp(app))
  // A member without panel access: the endpoint is for every signed-in user.
  t.equal((await admin('POST', '/api/panel/roles', { name: 'Members', permissions: [] }))[0], 200)
  t.equal((await admin('POST', '/api/panel/users', { username: 'bob', email: 'bob@example.org', password: PASSWORD, roleId: 3 }))[0], 200)
  const change = (cookie: string, payload: Record<string, unknown>) => client(app, cookie)('POST', '/api/auth/password', payload)

  t.test('signed out: 401; bad bodies: 400', async t => {
    const before = await snapshot(app)
    const anonymous = await app.inject({ method: 'POST', url: '/api/auth/password', payload: { currentPassword: PASSWORD, newPassword: 'a new password' } })
    t.same([anonymous.statusCode, anonymous.json()], [401, NOT_LOGGED_IN])
    const bob = await login(app, 'bob', PASSWORD)
    t.same(await change(bob, { currentPassword: PASSWORD, newPassword: 'short' }), [400, {
      result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'body/newPassword must NOT have fewer than 8 characters'
    }])
    t.same(await change(bob, { currentPassword: PASSWORD }), [400, {
      result: 'error', error: 'BAD_REQUEST', bodyValidationError: "body must have required property 'newPassword'"
    }])
    await client(app, bob)('POST', '/api/auth/logout')
    // Signing bob in and out made and removed sessions; nothing else moved.
    const { sessions: _, ...after } = await snapshot(app)
    const { sessions: __, ...expected } = before
    t.same(after, expected)
  })

  t.test('a wrong current password: 401 INVALID_CREDENTIALS, nothing changed', async t => {
    const bob = await login(app, 'bob', PASSWORD)
    const before = await snapshot(app)
    t.same(await change(bob, { currentPassword: 'not my password', newPassword: 'a new password' }), [401, INVALID_CREDENTIALS])
    t.same(await snapshot(app), before)
    t.equal((await client(app, bob)('GET', '/api/auth/me'))[0], 200, 'still signed in')
  })

  t.test('success: this session stays, every other one ends; the new password signs in, the old does not', async t => {
    const current = await login(app, 'bob', PASSWORD)
    const others = [await login(app, 'bob', PASSWORD), await login(app, 'bob', PASSWORD)]
    for (const other of others) t.equal((await client(app, other)('GET', '/api/auth/me'))[0], 200, 'remembered')
    const adminSessions = await app.db('sessions').where({ user_id: 1 }).select()
    t.same(await change(current, { currentPassword: PASSWORD, newPassword: 'my new password' }), [200, { result: 'ok' }])
    t.same(await client(app, current)('GET', '/api/auth/me'), [200, {
      result: 'ok', user: { id: 2, username: 'bob', role: { id: 3, name: 'Members' }, permissions: [] }
    }])
    for (const other of others) t.same(await client(app, other)('GET', '/api/auth/me'), [401, NOT_LOGGED_IN])
    t.equal((await app.db('sessions').where({ user_id: 2 }).select()).length, 1, 'one row left: this one')
    t.same(await app.db('sessions').where({ user_id: 1 }).select(), adminSessions, 'nobody else\'s sessions')
    t.same(await signIn(app, 'bob', PASSWORD), [401, INVALID_CREDENTIALS])
    t.same(await signIn(app, 'bob', 'my new password'), [200, { result: 'ok', user: { id: 2, username: 'bob', role: { id: 3, name: 'Members' } } }])
    t.same(await feed(app, await login(app, 'admin', ADMIN.password), 1), [
      { type: 'CHANGED_PASSWORD', userId: 2, username: 'bob', addonId: null, details: {}, text: 'bob changed their password' }
    ])
    t.same(await feed(app, await login(app, 'admin', ADMIN.password), 1, 'tr'), [
      { type: 'CHANGED_PASSWORD', userId: 2, username: 'bob', addonId: null, details: {}, text: 'bob parolasını değiştirdi' }
    ])
  })

  t.test('an earlier version\'s scrypt hash: a wrong password is refused and changes nothing; the right one signs in and leaves an argon2id hash, sessions kept', async t => {
    const salt = randomBytes(16)
    const key = await new Promise<Buffer>((resolve, reject) => scrypt('my new password', salt, 32, { N: 1024, r: 8, p: 1 }, (error, derived) => error ? reject(error) : resolve(derived)))
    const old = ['scrypt', 10, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
    await app.db('users').where({ id: 2 }).update({ password_hash: old })
    const kept = await login(app, 'bob', 'my new password')
    const hashOf = async (): Promise<string> => (await app.db('users').where({ id: 2 }).first('password_hash')).password_hash
    t.match(await hashOf(), /^\$argon2id\$v=19\$/, 'the sign-in hashed the password anew')
    t.same(await signIn(app, 'bob', 'my new password'), [200, { result: 'ok', user: { id: 2, username: 'bob', role: { id: 3, name: 'Members' } } }], 'and the new hash signs in')
    t.equal((await client(app, kept)('GET', '/api/auth/me'))[0], 200, 'the session stays')
    await app.db('users').where({ id: 2 }).update({ password_hash: old })
    t.same(await signIn(app, 'bob', 'not the password'), [401, INVALID_CREDENTIALS])
    t.equal(await hashOf(), old, 'a wrong password rewrites nothing')
  })
})

t.test('a stolen session cannot guess the password through POST /api/auth/password: counted like a sign-in', async t => {
  // The clock stands still, so no wait runs out during the burst.
  const now = Date.now()
  const app = await build(t, { throttle: { now: () => now }, hashing: { concurrency: 2, queue: 64 } })
  const cookie = await setUp(app)
  const guesses = await Promise.all(Array.from({ length: 40 }, (_, i) => app.inject({
    method: 'POST', url: '/api/auth/password', headers: { cookie }, payload: { currentPassword: `guess ${i}`, newPassword: 'taken over!' }
  })))
  const refused = guesses.filter(r => r.statusCode === 429)
  t.equal(guesses.filter(r => r.statusCode === 401).length, 5, 'five guesses checked')
  t.equal(refused.length, 35, 'the rest refused before any hash')
  t.same(refused[0]!.json(), { result: 'error', error: 'TOO_MANY_REQUESTS' })
  t.ok(Number(refused[0]!.headers['retry-after']) >= 1, 'with Retry-After')
  const stored = await app.db('users').where({ id: 1 }).first('password_hash')
  t.ok(await app.identity.passwords.verify(ADMIN.password, stored.password_hash), 'the password is unchanged')
})
