import t from 'tap'
import { ADMIN, build, login, setUp, type App } from '../../helpers/app.js'

const signIn = (app: App, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: ADMIN.username, password: ADMIN.password }, headers })

t.test('PUBLIC_URL over https: a Secure __Host- session cookie, and the origin allowed', async t => {
  // No TRUST_PROXY: the TLS proxy in front is not believed, every request looks like plain http.
  const app = await build(t, { config: { publicUrl: 'https://shouts.example.org' } })
  const cookie = await setUp(app)
  t.match(cookie, /^__Host-shoutbox_session=[A-Za-z0-9_-]{43}$/, 'setup signs the admin in under the prefixed name')

  t.test('the cookie: __Host-shoutbox_session, Secure although the request was plain http, path /, no Domain', async t => {
    const response = await signIn(app)
    const header = String(response.headers['set-cookie'])
    t.match(header, /^__Host-shoutbox_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    t.notMatch(header, /Domain=/i)
    t.equal(response.cookies.filter(c => c.name === 'shoutbox_session').length, 0, 'no unprefixed cookie')
  })

  t.test('only the configured name is read', async t => {
    const session = await login(app, ADMIN.username, ADMIN.password)
    t.equal((await app.inject({ url: '/api/auth/me', headers: { cookie: session } })).statusCode, 200)
    const token = session.split('=')[1]!
    const unprefixed = await app.inject({ url: '/api/auth/me', headers: { cookie: `shoutbox_session=${token}` } })
    t.same([unprefixed.statusCode, unprefixed.json()], [401, { result: 'error', error: 'NOT_LOGGED_IN' }])
  })

  t.test('sign-out clears it with the attributes a browser needs to accept the clearing', async t => {
    const session = await login(app, ADMIN.username, ADMIN.password)
    const response = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: session } })
    t.equal(response.statusCode, 200)
    t.match(String(response.headers['set-cookie']), /^__Host-shoutbox_session=; Max-Age=0; Path=\/; Expires=[^;]+; Secure(;|$)/)
    t.equal((await app.inject({ url: '/api/auth/me', headers: { cookie: session } })).statusCode, 401)
  })

  t.test('the Origin check allows the public origin even when the proxy rewrote Host', async t => {
    const post = (origin: string) => app.inject({
      method: 'POST', url: '/api/auth/logout', headers: { host: '127.0.0.1:8080', origin, cookie }
    })
    t.equal((await post('https://shouts.example.org')).statusCode, 200)
    t.same((await post('https://evil.example')).json(), { result: 'error', error: 'INVALID_ORIGIN' })
    t.same((await post('http://shouts.example.org')).json(), { result: 'error', error: 'INVALID_ORIGIN' }, 'the scheme is part of it')
  })

  t.test('the proxy keeps Host (nginx\'s proxy_set_header Host $host): a page of the same host over plain http is another site', async t => {
    const session = await login(app, ADMIN.username, ADMIN.password)
    const post = (origin: string) => app.inject({
      method: 'POST', url: '/api/auth/logout', headers: { host: 'shouts.example.org', origin, cookie: session }
    })
    t.same((await post('http://shouts.example.org')).json(), { result: 'error', error: 'INVALID_ORIGIN' }, 'http, the same host')
    t.same((await post('https://shouts.example.org:8443')).json(), { result: 'error', error: 'INVALID_ORIGIN' }, 'https, another port')
    t.equal((await post('https://shouts.example.org')).statusCode, 200, 'the public origin itself')
  })
})

t.test('PUBLIC_URL over plain http: the usual name, Secure only over https', async t => {
  const app = await build(t, { config: { publicUrl: 'http://shouts.example.org:8080', trustProxy: 1 } })
  const cookie = await setUp(app)
  t.match(cookie, /^shoutbox_session=/)
  t.notOk((await signIn(app)).cookies.find(c => c.name === 'shoutbox_session')!.secure)
  t.equal((await signIn(app, { 'x-forwarded-proto': 'https' })).cookies.find(c => c.name === 'shoutbox_session')!.secure, true)
  const post = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { host: 'internal', origin: 'http://shouts.example.org:8080', cookie } })
  t.equal(post.statusCode, 200)
})
