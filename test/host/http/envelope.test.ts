import t, { type Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN, build, setUp, userWith, type App } from '../../helpers/app.js'
import { greeterAddonsDir } from '../../helpers/fixtures.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/** Every answer: the status, the whole body, and the JSON content type. */
function expectAnswer (t: Test, response: LightMyRequestResponse, status: number, body: unknown): void {
  t.equal(response.statusCode, status, `status of ${response.body}`)
  t.same(response.json(), body)
  t.equal(response.headers['content-type'], JSON_TYPE)
}

t.test('CONTRACT §3, row by row, as the host produces them', async t => {
  const addonsDir = await greeterAddonsDir(t)
  const app = await build(t, {
    config: { addonsDir },
    throttle: { freeAttempts: 3, firstDelayMs: 60_000 }
  })

  // These two are awaited: they check the host before the setUp below; the rest after it.
  await t.test('success: 200 {"result":"ok", …fields}', async t => {
    expectAnswer(t, await app.inject({ url: '/api/setup/status' }), 200, { result: 'ok', setupDone: false })
  })

  await t.test('INSTALLATION_REQUIRED 503: an addon endpoint before setup', async t => {
    expectAnswer(t, await app.inject({ url: '/api/greeter/hello' }), 503, { result: 'error', error: 'INSTALLATION_REQUIRED' })
  })

  const cookie = await setUp(app)

  t.test('PLATFORM_ALREADY_INSTALLED 409: a SetupApi endpoint after setup', async t => {
    expectAnswer(t, await app.inject({ method: 'POST', url: '/api/setup/finish', payload: ADMIN }), 409,
      { result: 'error', error: 'PLATFORM_ALREADY_INSTALLED' })
  })

  t.test('BAD_REQUEST 400 with bodyValidationError: each kind of bad body', async t => {
    const post = (payload: string | undefined, contentType: string | undefined) => app.inject({
      method: 'POST',
      url: '/api/greeter/echo',
      ...(payload === undefined ? {} : { payload }),
      headers: contentType === undefined ? {} : { 'content-type': contentType }
    })
    const bad = (what: string) => ({ result: 'error', error: 'BAD_REQUEST', bodyValidationError: what })
    expectAnswer(t, await post(undefined, undefined), 400, bad('body must be object'))
    expectAnswer(t, await post('', 'application/json'), 400, bad('body must be a JSON object, but the request has no body'))
    expectAnswer(t, await post('{"text":', 'application/json'), 400, bad('body is not valid JSON'))
    expectAnswer(t, await post('[1,2]', 'application/json'), 400, bad('body must be object'))
    expectAnswer(t, await post('"text"', 'application/json'), 400, bad('body must be object'))
    expectAnswer(t, await post('null', 'application/json'), 400, bad('body must be object'))
    expectAnswer(t, await post('text=hi', 'application/x-www-form-urlencoded'), 400, bad('body must be sent as application/json'))
    expectAnswer(t, await post('{"text":"hi"}', 'text/plain'), 400, bad('body must be sent as application/json'))
    expectAnswer(t, await post('{"text":5}', 'application/json'), 400, bad('body/text must be string'))
    expectAnswer(t, await post('{}', 'application/json'), 400, bad("body must have required property 'text'"))
    expectAnswer(t, await post('{"__proto__":{"x":1},"text":"a"}', 'application/json'), 400,
      bad('body must not contain a "__proto__" or "constructor" key'))
  })

  t.test('unknown body properties are ignored', async t => {
    expectAnswer(t, await app.inject({ method: 'POST', url: '/api/greeter/echo', payload: { text: 'hi', extra: true } }), 200,
      { result: 'ok', text: 'hi' })
  })

  t.test('an addon error class answers with its own code and extras', async t => {
    expectAnswer(t, await app.inject({ url: '/api/greeter/teapot' }), 400, { result: 'error', error: 'TEAPOT_IS_FULL', cups: 3 })
  })

  t.test('NOT_LOGGED_IN 401: no session, an unknown token, a malformed token', async t => {
    for (const headers of [{}, { cookie: 'shoutbox_session=' + 'A'.repeat(43) }, { cookie: 'shoutbox_session=x' }]) {
      expectAnswer(t, await app.inject({ url: '/api/auth/me', headers }), 401, { result: 'error', error: 'NOT_LOGGED_IN' })
    }
  })

  t.test('INVALID_CREDENTIALS 401 then TOO_MANY_REQUESTS 429 with Retry-After', async t => {
    const attempt = () => app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'wrong password' } })
    for (let i = 0; i < 3; i++) expectAnswer(t, await attempt(), 401, { result: 'error', error: 'INVALID_CREDENTIALS' })
    const limited = await attempt()
    expectAnswer(t, limited, 429, { result: 'error', error: 'TOO_MANY_REQUESTS' })
    t.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60)
  })

  t.test('NO_PERMISSION 403: signed in without panel access', async t => {
    const member = await userWith(app, cookie, 'member', [])
    expectAnswer(t, await app.inject({ url: '/api/panel/logs/activity', headers: { cookie: member } }), 403,
      { result: 'error', error: 'NO_PERMISSION' })
  })

  t.test('INVALID_ORIGIN 403: a state-changing request from another site', async t => {
    expectAnswer(t, await app.inject({
      method: 'POST', url: '/api/greeter/echo', headers: { origin: 'https://evil.example' }, payload: { text: 'x' }
    }), 403, { result: 'error', error: 'INVALID_ORIGIN' })
  })

  t.test('NOT_FOUND 404: no such route, or the wrong method', async t => {
    expectAnswer(t, await app.inject({ url: '/api/nothing/here' }), 404, { result: 'error', error: 'NOT_FOUND' })
    expectAnswer(t, await app.inject({ method: 'DELETE', url: '/api/shoutbox/list' }), 404, { result: 'error', error: 'NOT_FOUND' })
  })

  t.test('PAYLOAD_TOO_LARGE 413: over 64 KiB, or over an endpoint\'s own smaller limit', async t => {
    const big = JSON.stringify({ message: 'x'.repeat(64 * 1024) })
    expectAnswer(t, await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie, 'content-type': 'application/json' }, payload: big }),
      413, { result: 'error', error: 'PAYLOAD_TOO_LARGE' })
    expectAnswer(t, await app.inject({ method: 'POST', url: '/api/greeter/echo', payload: { text: 'y'.repeat(2000) } }),
      413, { result: 'error', error: 'PAYLOAD_TOO_LARGE' })
  })

  t.test('INTERNAL_SERVER_ERROR 500: a generic body, no stack, no SQL', async t => {
    const response = await app.inject({ url: '/api/greeter/boom' })
    expectAnswer(t, response, 500, { result: 'error', error: 'INTERNAL_SERVER_ERROR' })
    t.notMatch(response.body, /select|secret|at /)
  })

  t.test('a StreamedList goes out as the JSON of the whole answer; a batch that fails cuts it short', async t => {
    const whole = await app.inject({ url: '/api/greeter/counted?batches=3' })
    t.equal(whole.statusCode, 200)
    t.match(whole.headers['content-type'], /^application\/json/)
    t.equal(whole.headers.etag, undefined)
    t.equal(whole.body, JSON.stringify({ result: 'ok', counting: 'up', batches: 3, numbers: [1, 2, 3, 4, 5, 6, 7, 8, 9] }))
    t.equal((await app.inject({ url: '/api/greeter/counted?batches=0' })).body, '{"result":"ok","counting":"up","batches":0,"numbers":[]}')
    // The head has gone out: the answer is ended without its last chunk, so no client can take it for a whole one.
    await t.rejects(app.inject({ url: '/api/greeter/counted?batches=3&failAt=1' }), { code: 'LIGHT_ECONNRESET' }, 'the answer is cut, not completed')
    t.equal((await app.inject({ url: '/api/greeter/hello' })).statusCode, 200, 'the host serves on')
  })

  t.test('every answer says nosniff', async t => {
    const response = await app.inject({ url: '/api/shoutbox/list' })
    t.equal(response.headers['x-content-type-options'], 'nosniff')
  })

  // This subtest takes the database away, so it runs on a host of its own, set up like
  // the shared one: the `app` it uses is the parameter.
  const onAHostOfItsOwn = (app: App) =>
  t.test('SERVICE_UNAVAILABLE 503: the database cannot be reached', async t => {
    await app.db.destroy()
    expectAnswer(t, await app.inject({ url: '/api/greeter/hello' }), 503, { result: 'error', error: 'SERVICE_UNAVAILABLE' })
    expectAnswer(t, await app.inject({ url: '/api/health' }), 503, { result: 'error', error: 'SERVICE_UNAVAILABLE', database: 'down' })
  })
  const own = await build(t, { config: { addonsDir } })
  await setUp(own)
  onAHostOfItsOwn(own)
})

