import t from 'tap'
import { hashToken } from '../../../src/host/identity/sessions.js'
import { ADMIN, build, setUp, sessionCookie, type App } from '../../helpers/app.js'

const login = (app: App, username: string, password: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, headers })

t.test('sign-in and sessions', async t => {
  const app = await build(t, { config: { trustProxy: 1 } })
  await setUp(app)

  t.test('by username, case-insensitively, and by e-mail', async t => {
    for (const name of ['admin', 'ADMIN', 'admin@example.org', 'Admin@Example.org']) {
      const response = await login(app, name, ADMIN.password)
      t.same([response.statusCode, response.json()], [200, { result: 'ok', user: { id: 1, username: 'admin', role: { id: 1, name: 'admin' } } }], name)
    }
  })

  t.test('a wrong password or an unknown user: 401 INVALID_CREDENTIALS, the same answer', async t => {
    for (const [name, password] of [['admin', 'not the password'], ['nobody', ADMIN.password]] as const) {
      const response = await login(app, name, password, { 'x-forwarded-for': `10.0.0.${name.length}` })
      t.same([response.statusCode, response.json()], [401, { result: 'error', error: 'INVALID_CREDENTIALS' }])
      t.equal(response.headers['set-cookie'], undefined, 'no cookie')
    }
  })

  t.test('the cookie: HttpOnly, SameSite=Lax, 30 days, path /, a 256-bit token, only its hash stored', async t => {
    const response = await login(app, 'admin', ADMIN.password)
    const cookie = response.cookies.find(c => c.name === 'shoutbox_session')!
    t.match(cookie, { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 30 * 24 * 3600 })
    t.notOk(cookie.secure, 'not Secure over plain http')
    t.match(cookie.value, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url')
    const rows: Array<{ token_hash: string }> = await app.db('sessions').select('token_hash')
    t.notOk(rows.some(r => r.token_hash === cookie.value), 'the token itself is not stored')
    t.ok(rows.some(r => r.token_hash === hashToken(cookie.value)), 'its SHA-256 is')
  })

  t.test('Secure when the request came over HTTPS through the trusted proxy', async t => {
    const response = await login(app, 'admin', ADMIN.password, { 'x-forwarded-proto': 'https' })
    t.equal(response.cookies.find(c => c.name === 'shoutbox_session')!.secure, true)
  })

  t.test('every sign-in issues a new token and ends the one the request carried', async t => {
    const first = sessionCookie(await login(app, 'admin', ADMIN.password))
    const second = sessionCookie(await login(app, 'admin', ADMIN.password, { cookie: first }))
    t.not(first, second)
    t.equal((await app.inject({ url: '/api/auth/me', headers: { cookie: first } })).statusCode, 401, 'the old token is dead')
    t.equal((await app.inject({ url: '/api/auth/me', headers: { cookie: second } })).statusCode, 200)
  })

  t.test('me: who the session belongs to, with the role\'s permissions', async t => {
    const cookie = sessionCookie(await login(app, 'admin', ADMIN.password))
    const response = await app.inject({ url: '/api/auth/me', headers: { cookie } })
    t.same([response.statusCode, response.json()], [200, {
      result: 'ok', user: { id: 1, username: 'admin', role: { id: 1, name: 'admin' }, permissions: ['*'] }
    }])
  })

  t.test('sign-out deletes the session and clears the cookie', async t => {
    const cookie = sessionCookie(await login(app, 'admin', ADMIN.password))
    const response = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } })
    t.same([response.statusCode, response.json()], [200, { result: 'ok' }])
    const cleared = response.cookies.find(c => c.name === 'shoutbox_session')!
    t.equal(cleared.value, '')
    t.ok(cleared.expires !== undefined && cleared.expires.getTime() <= Date.now(), 'expired at once')
    t.same((await app.inject({ url: '/api/auth/me', headers: { cookie } })).json(), { result: 'error', error: 'NOT_LOGGED_IN' })
    const left = await app.db('sessions').where({ token_hash: hashToken(cookie.split('=')[1]!) }).first()
    t.equal(left, undefined, 'gone from the database')
  })

  t.test('an expired session is refused and deleted', async t => {
    const cookie = sessionCookie(await login(app, 'admin', ADMIN.password))
    const hash = hashToken(cookie.split('=')[1]!)
    await app.db('sessions').where({ token_hash: hash }).update({ expires_at: Date.now() - 1 })
    const response = await app.inject({ url: '/api/auth/me', headers: { cookie } })
    t.same([response.statusCode, response.json()], [401, { result: 'error', error: 'NOT_LOGGED_IN' }])
    t.equal(await app.db('sessions').where({ token_hash: hash }).first(), undefined, 'purged')
  })
})

t.test('X-Forwarded-Proto is ignored unless a proxy is trusted', async t => {
  const app = await build(t)
  await setUp(app)
  const response = await login(app, 'admin', ADMIN.password, { 'x-forwarded-proto': 'https' })
  t.notOk(response.cookies.find(c => c.name === 'shoutbox_session')!.secure)
})
