import t from 'tap'
import { SETUP_TOKEN, build, setUp, userWith } from '../../helpers/app.js'

/** CONTRACT §4: origin check, then the access class (before the body is read), then validation, then the endpoint's permission check. */
t.test('checks run in the documented order', async t => {
  const app = await build(t)
  const badJson = { 'content-type': 'application/json' }

  // These two are awaited: they check the host before the setUp below; the rest after it.
  await t.test('before setup, an Api endpoint answers INSTALLATION_REQUIRED whatever the body', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/auth/login', headers: badJson, payload: '{oops' })
    t.same([response.statusCode, response.json()], [503, { result: 'error', error: 'INSTALLATION_REQUIRED' }])
  })

  await t.test('a SetupApi endpoint validates its body while setup is open', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/setup/finish', payload: { username: 'ad', email: 'a@b.c', password: 'short', setupToken: SETUP_TOKEN } })
    t.same([response.statusCode, response.json()], [400, {
      result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'body/username must NOT have fewer than 3 characters'
    }])
  })

  const admin = await setUp(app)
  const member = await userWith(app, admin, 'member', [])
  const panelOnly = await userWith(app, admin, 'moderator', ['panel.access'])

  t.test('the origin check comes first: cross-site and signed out → INVALID_ORIGIN, not NOT_LOGGED_IN', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { 'sec-fetch-site': 'cross-site' }, payload: { message: 'x' } })
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'INVALID_ORIGIN' }])
  })

  t.test('SetupApi after setup → PLATFORM_ALREADY_INSTALLED before the body is read', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/setup/finish', headers: badJson, payload: '{oops' })
    t.same([response.statusCode, response.json()], [409, { result: 'error', error: 'PLATFORM_ALREADY_INSTALLED' }])
  })

  t.test('LoggedInApi without a session → NOT_LOGGED_IN before the body is read', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: badJson, payload: '{oops' })
    t.same([response.statusCode, response.json()], [401, { result: 'error', error: 'NOT_LOGGED_IN' }])
  })

  t.test('PanelApi for a user without panel access → NO_PERMISSION before the body is read', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { ...badJson, cookie: member }, payload: '{oops' })
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
  })

  t.test('a panel user lacking the endpoint\'s permission: a bad body is BAD_REQUEST (validation first)', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: panelOnly }, payload: { message: 42 } })
    t.same([response.statusCode, response.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'body/message must be string' }])
  })

  t.test('the same user with a good body reaches the permission check: NO_PERMISSION', async t => {
    const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: panelOnly }, payload: { message: 'hi' } })
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
  })

  t.test('an Api endpoint needs no session', async t => {
    const response = await app.inject({ url: '/api/shoutbox/list' })
    t.same([response.statusCode, response.json()], [200, { result: 'ok', shouts: [] }])
  })

  t.test('LoggedInApi for any signed-in user', async t => {
    const response = await app.inject({ url: '/api/auth/me', headers: { cookie: member } })
    t.equal(response.statusCode, 200)
    t.match(response.json(), { result: 'ok', user: { username: 'member', permissions: [] } })
  })
})
