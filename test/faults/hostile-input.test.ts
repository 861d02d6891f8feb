import http from 'node:http'
import net from 'node:net'
import t from 'tap'
import { build, setUp, userWith } from '../helpers/app.js'
import { parseResponse, rawRequest } from '../helpers/raw-http.js'
import type { Shout } from '../helpers/types.js'

interface Case {
  readonly name: string
  readonly method?: string
  readonly path: string
  readonly as?: 'admin' | 'helper' | 'nobody'
  readonly headers?: Record<string, string>
  /** A string is sent as UTF-8; a Buffer as its bytes; an object as JSON. */
  readonly body?: string | Buffer | Record<string, unknown> | unknown[]
  readonly status: number
  /** The whole expected body, or only its error code. */
  readonly expect: Record<string, unknown> | string
}

const JSON_TYPE = { 'content-type': 'application/json' }
const bad = (what: string) => ({ result: 'error', error: 'BAD_REQUEST', bodyValidationError: what })
const code = (error: string) => ({ result: 'error', error })
const publish = (body: Case['body'], name: string, status: number, expect: Case['expect'], headers: Record<string, string> = JSON_TYPE): Case =>
  ({ name: `publish: ${name}`, method: 'POST', path: '/panel/api/shoutbox', headers, body, status, expect })
const notString = bad('body/message must be string')
const badId = bad('params/id must match pattern "^[0-9]{1,15}$"')

const CASES: Case[] = [
  // Malformed and truncated JSON, JSON that is not an object.
  publish(undefined, 'no body, no content type', 400, bad('body must be object'), {}),
  publish('', 'an empty JSON body', 400, bad('body must be a JSON object, but the request has no body')),
  publish('{', 'one brace', 400, bad('body is not valid JSON')),
  publish('{"message":"hi"', 'truncated', 400, bad('body is not valid JSON')),
  publish('{"message":"hi"}}', 'trailing garbage', 400, bad('body is not valid JSON')),
  publish("{'message':'hi'}", 'single quotes', 400, bad('body is not valid JSON')),
  publish('{"message":"hi",}', 'a trailing comma', 400, bad('body is not valid JSON')),
  publish('{"message":NaN}', 'NaN', 400, bad('body is not valid JSON')),
  publish('[]', 'an array', 400, bad('body must be object')),
  publish('"hi"', 'a string', 400, bad('body must be object')),
  publish('42', 'a number', 400, bad('body must be object')),
  publish('null', 'null', 400, bad('body must be object')),
  publish('true', 'true', 400, bad('body must be object')),
  // Wrong content types.
  publish('{"message":"hi"}', 'as text/plain', 400, bad('body must be sent as application/json'), { 'content-type': 'text/plain' }),
  publish('message=hi', 'as a form', 400, bad('body must be sent as application/json'), { 'content-type': 'application/x-www-form-urlencoded' }),
  publish('--x\r\n\r\nhi\r\n--x--', 'as multipart', 400, bad('body must be sent as application/json'), { 'content-type': 'multipart/form-data; boundary=x' }),
  publish('<message>hi</message>', 'as XML', 400, bad('body must be sent as application/json'), { 'content-type': 'application/xml' }),
  publish('{"message":"hi"}', 'as a made-up type', 400, bad('body must be sent as application/json'), { 'content-type': 'application/x-shout' }),
  // JSON is UTF-8; a body declared in another charset would be misread, so it is refused.
  publish('{"message":"caf\u00e9"}', 'declared latin1', 400, bad('body must be sent as UTF-8, not latin1'), { 'content-type': 'application/json; charset=latin1' }),
  publish('{"message":"hi"}', 'declared UTF-16, quoted', 400, bad('body must be sent as UTF-8, not UTF-16'), { 'content-type': 'application/json; charset="UTF-16"' }),
  // Wrong types.
  publish({}, 'no message', 400, bad("body must have required property 'message'")),
  publish({ message: null }, 'message null', 400, notString),
  publish({ message: 1 }, 'message a number', 400, notString),
  publish({ message: true }, 'message a boolean', 400, notString),
  publish({ message: {} }, 'message an object', 400, notString),
  publish({ message: ['hi'] }, 'message an array', 400, notString),
  publish({ Message: 'hi' }, 'message with a capital M', 400, bad("body must have required property 'message'")),
  // Huge and deep.
  publish({ message: 'x'.repeat(70_000) }, '70 KB', 413, code('PAYLOAD_TOO_LARGE')),
  publish(Buffer.alloc(2_000_000, 'a'), '2 MB of garbage', 413, code('PAYLOAD_TOO_LARGE')),
  publish(`{"message":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, '20,000 levels deep', 400, notString),
  publish({ message: 'x'.repeat(501) }, 'over maxMessageLength', 400, { result: 'error', error: 'MESSAGE_TOO_LONG', maxMessageLength: 500 }),
  // Prototype poisoning.
  publish('{"__proto__":{"isAdmin":true},"message":"hi"}', '__proto__', 400, bad('body must not contain a "__proto__" or "constructor" key')),
  publish('{"constructor":{"prototype":{"x":1}},"message":"hi"}', 'constructor.prototype', 400, bad('body must not contain a "__proto__" or "constructor" key')),
  publish('{"message":"hi","nested":{"__proto__":{}}}', 'a nested __proto__', 400, bad('body must not contain a "__proto__" or "constructor" key')),
  // Text PostgreSQL cannot hold, bytes that are not UTF-8, blank text.
  publish('{"message":"a\\u0000b"}', 'U+0000', 400, bad('body/message must not contain U+0000 or an unpaired surrogate')),
  publish('{"message":"\\ud800"}', 'a lone high surrogate', 400, bad('body/message must not contain U+0000 or an unpaired surrogate')),
  publish('{"message":"\\udfff!"}', 'a lone low surrogate', 400, bad('body/message must not contain U+0000 or an unpaired surrogate')),
  publish(Buffer.from([0x7b, 0x22, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'invalid UTF-8 bytes', 400, bad('body is not valid UTF-8')),
  publish(Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), 'an overlong UTF-8 form', 400, bad('body is not valid UTF-8')),
  publish(Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), 'a surrogate encoded in UTF-8', 400, bad('body is not valid UTF-8')),
  publish({ message: '' }, 'empty', 400, bad('body/message must not be empty or only whitespace')),
  publish({ message: ' \t\r\n ' }, 'ASCII whitespace', 400, bad('body/message must not be empty or only whitespace')),
  publish({ message: '\u00a0\u2003\u3000' }, 'Unicode spaces', 400, bad('body/message must not be empty or only whitespace')),
  // Who may call it.
  { name: 'publish: signed out', method: 'POST', path: '/panel/api/shoutbox', as: 'nobody', headers: JSON_TYPE, body: { message: 'hi' }, status: 401, expect: code('NOT_LOGGED_IN') },
  { name: 'publish: a forged session cookie', method: 'POST', path: '/panel/api/shoutbox', as: 'nobody', headers: { ...JSON_TYPE, cookie: `shoutbox_session=${'A'.repeat(43)}` }, body: { message: 'hi' }, status: 401, expect: code('NOT_LOGGED_IN') },
  { name: 'publish: an 8 KB cookie', method: 'POST', path: '/panel/api/shoutbox', as: 'nobody', headers: { ...JSON_TYPE, cookie: `shoutbox_session=${'x'.repeat(8000)}` }, body: { message: 'hi' }, status: 401, expect: code('NOT_LOGGED_IN') },
  { name: 'publish: without the permission', method: 'POST', path: '/panel/api/shoutbox', as: 'helper', headers: JSON_TYPE, body: { message: 'hi' }, status: 403, expect: code('NO_PERMISSION') },
  { name: 'publish: from another site', method: 'POST', path: '/panel/api/shoutbox', headers: { ...JSON_TYPE, origin: 'https://evil.example' }, body: { message: 'hi' }, status: 403, expect: code('INVALID_ORIGIN') },
  { name: 'publish: cross-site fetch metadata', method: 'POST', path: '/panel/api/shoutbox', headers: { ...JSON_TYPE, 'sec-fetch-site': 'cross-site' }, body: { message: 'hi' }, status: 403, expect: code('INVALID_ORIGIN') },
  // Path parameters that are not ids.
  ...['abc', '-1', '1.5', '1e3', '0x10', '%20', '1%00', '99999999999999999999', '..%2F..%2Fetc%2Fpasswd'].map((id): Case =>
    ({ name: `delete: id "${id}"`, method: 'DELETE', path: `/panel/api/shoutbox/${id}`, status: 400, expect: badId })),
  { name: 'delete: an id that does not exist', method: 'DELETE', path: '/panel/api/shoutbox/424242', status: 404, expect: code('NOT_FOUND') },
  { name: 'roles: a PUT with a non-integer id', method: 'PUT', path: '/panel/api/roles/abc', headers: JSON_TYPE, body: { name: 'x', permissions: [] }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'roles: an id past int4', method: 'PUT', path: '/panel/api/roles/9999999999', headers: JSON_TYPE, body: { name: 'x', permissions: [] }, status: 400, expect: 'BAD_REQUEST' },
  // Settings.
  ...([[{ maxShouts: -1 }, 'negative'], [{ maxShouts: '5' }, 'a string'], [{ maxShouts: 1e308 }, 'huge'], [{ maxMessageLength: 0 }, 'zero length'],
    [{ maxMessageLength: 10_001 }, 'too long a limit'], [{}, 'empty'], [{ maxShouts: [1] }, 'an array']] as const).map(([body, name]): Case =>
    ({ name: `settings: ${name}`, method: 'PUT', path: '/panel/api/shoutbox/config', headers: JSON_TYPE, body, status: 400, expect: 'BAD_REQUEST' })),
  // Other endpoints' bodies and queries.
  { name: 'roles: an empty name', method: 'POST', path: '/panel/api/roles', headers: JSON_TYPE, body: { name: '', permissions: [] }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'roles: permissions not a list', method: 'POST', path: '/panel/api/roles', headers: JSON_TYPE, body: { name: 'r', permissions: 'all' }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'users: roleId as text', method: 'POST', path: '/panel/api/users', headers: JSON_TYPE, body: { username: 'bob', email: 'b@example.org', password: 'long enough', roleId: '1' }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'users: SQL in the username', method: 'POST', path: '/panel/api/users', headers: JSON_TYPE, body: { username: "x'; drop table users; --", email: 'b@example.org', password: 'long enough', roleId: 1 }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'users: a PUT with an id past int4', method: 'PUT', path: '/panel/api/users/9999999999', headers: JSON_TYPE, body: { disabled: true }, status: 400, expect: bad('params/id is out of range') },
  // The same anywhere in any body: before, the host's own endpoints let it reach the
  // database (500, a logged stack) or stored a lone surrogate as U+FFFD.
  ...([
    ['login: U+0000 in the username', '/api/auth/login', '{"username":"admin\\u0000","password":"whatever1"}', 'body/username', 'nobody'],
    ['sign-up: U+0000 in the e-mail', '/api/auth/signup', '{"username":"nulsign","email":"n\\u0000@x.y","password":"long enough"}', 'body/email', 'nobody'],
    ['users: U+0000 in a new user\'s e-mail', '/panel/api/users', '{"username":"nul","email":"a\\u0000@b.c","password":"long enough","roleId":1}', 'body/email', undefined],
    ['users: a lone surrogate in a new user\'s e-mail', '/panel/api/users', '{"username":"sur","email":"a\\ud800@b.c","password":"long enough","roleId":1}', 'body/email', undefined],
    ['roles: U+0000 in a name', '/panel/api/roles', '{"name":"r\\u0000x","permissions":[]}', 'body/name', undefined],
    ['roles: a lone surrogate in a permission', '/panel/api/roles', '{"name":"rx","permissions":["\\udc00"]}', 'body/permissions/0', undefined],
    ['U+0000 in a key', '/panel/api/shoutbox', '{"message":"hi","a\\u0000":1}', 'body', undefined]
  ] as const).map(([name, path, body, at, as]): Case =>
    ({ name, method: 'POST', path, headers: JSON_TYPE, body, status: 400, expect: bad(`${at} must not contain U+0000 or an unpaired surrogate`), ...(as === undefined ? {} : { as }) })),
  { name: 'users: a DELETE with an id past int4', method: 'DELETE', path: '/panel/api/users/9999999999', status: 400, expect: bad('params/id is out of range') },
  { name: 'users: a DELETE with a non-integer id', method: 'DELETE', path: '/panel/api/users/1e3', status: 400, expect: badId },
  { name: 'users: a PUT with nothing to change', method: 'PUT', path: '/panel/api/users/1', headers: JSON_TYPE, body: {}, status: 400, expect: bad('body must NOT have fewer than 1 properties') },
  { name: 'users: disabled as text', method: 'PUT', path: '/panel/api/users/1', headers: JSON_TYPE, body: { disabled: 'true' }, status: 400, expect: bad('body/disabled must be boolean') },
  { name: 'users: a helper disables the admin', method: 'PUT', path: '/panel/api/users/1', as: 'helper', headers: JSON_TYPE, body: { disabled: true }, status: 403, expect: code('NO_PERMISSION') },
  { name: 'users: a helper deletes the admin', method: 'DELETE', path: '/panel/api/users/1', as: 'helper', status: 403, expect: code('NO_PERMISSION') },
  { name: 'password: the new one a number', method: 'POST', path: '/api/auth/password', headers: JSON_TYPE, body: { currentPassword: 'x', newPassword: 12345678 }, status: 400, expect: bad('body/newPassword must be string') },
  { name: 'password: signed out', method: 'POST', path: '/api/auth/password', as: 'nobody', headers: JSON_TYPE, body: { currentPassword: 'x', newPassword: 'long enough' }, status: 401, expect: code('NOT_LOGGED_IN') },
  { name: 'login: no password', method: 'POST', path: '/api/auth/login', as: 'nobody', headers: JSON_TYPE, body: { username: 'admin' }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'login: a 10 KB username', method: 'POST', path: '/api/auth/login', as: 'nobody', headers: JSON_TYPE, body: { username: 'a'.repeat(10_000), password: 'x' }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'login: a number as password', method: 'POST', path: '/api/auth/login', as: 'nobody', headers: JSON_TYPE, body: { username: 'admin', password: 12345678 }, status: 400, expect: 'BAD_REQUEST' },
  { name: 'setup: again', method: 'POST', path: '/api/setup/finish', as: 'nobody', headers: JSON_TYPE, body: { username: 'again', email: 'a@example.org', password: 'long enough' }, status: 409, expect: code('PLATFORM_ALREADY_INSTALLED') },
  { name: 'activity: page "abc"', path: '/panel/api/logs/activity?page=abc', status: 400, expect: bad('querystring/page must be integer') },
  { name: 'activity: page -1', path: '/panel/api/logs/activity?page=-1', status: 400, expect: bad('querystring/page must be >= 1') },
  // Text JavaScript reads as a number is not an integer in a URL.
  { name: 'activity: page 1e2', path: '/panel/api/logs/activity?page=1e2', status: 400, expect: bad('querystring/page must be integer') },
  { name: 'activity: page 0x10', path: '/panel/api/logs/activity?page=0x10', status: 400, expect: bad('querystring/page must be integer') },
  { name: 'activity: page +5', path: '/panel/api/logs/activity?page=%2B5', status: 400, expect: bad('querystring/page must be integer') },
  { name: 'activity: page " 5"', path: '/panel/api/logs/activity?page=%205', status: 400, expect: bad('querystring/page must be integer') },
  { name: 'archive: limit 1e1', path: '/api/shoutbox/archive?limit=1e1', as: 'nobody', status: 400, expect: bad('querystring/limit must be integer') },
  { name: 'activity: page past the limit', path: '/panel/api/logs/activity?page=99999999999', status: 400, expect: 'BAD_REQUEST' },
  { name: 'stream: a bad lastEventId', path: '/api/shoutbox/stream?lastEventId=abc', as: 'nobody', status: 400, expect: 'BAD_REQUEST' },
  // Wrong methods and unknown routes.
  { name: 'PATCH the publish endpoint', method: 'PATCH', path: '/panel/api/shoutbox', headers: JSON_TYPE, body: { message: 'hi' }, status: 404, expect: code('NOT_FOUND') },
  { name: 'PUT the list', method: 'PUT', path: '/api/shoutbox/list', headers: JSON_TYPE, body: {}, status: 404, expect: code('NOT_FOUND') },
  { name: 'DELETE the list', method: 'DELETE', path: '/api/shoutbox/list', status: 404, expect: code('NOT_FOUND') },
  { name: 'an unknown API route', path: '/api/shoutbox/nothing', status: 404, expect: code('NOT_FOUND') },
  { name: 'dot segments after an API route', path: '/api/shoutbox/list/../../../etc/passwd', status: 404, expect: code('NOT_FOUND') },
  // Path traversal against the static pages.
  // (Dot segments and NUL are refused outright; encoded slashes just find nothing.)
  ...['/panel/../../package.json', '/panel/%2e%2e/%2e%2e/package.json', '/theme/../../../../etc/passwd',
    '/addons/shoutbox/ui/../../../../package.json', '/addons/shoutbox/ui/%00.js', '/theme/index.html%00'].map((path): Case =>
    ({ name: `traversal: ${path}`, path, as: 'nobody', status: 400, expect: code('BAD_REQUEST') })),
  ...['/panel/..%2f..%2fpackage.json', '/addons/shoutbox/ui/..%2f..%2f..%2faddon.json', '/addons/nope/ui/panel.js'].map((path): Case =>
    ({ name: `traversal: ${path}`, path, as: 'nobody', status: 404, expect: code('NOT_FOUND') }))
]

t.test(`a hostile-input corpus: ${CASES.length} requests, each answered as documented, nothing stored, the process alive`, async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const helper = await userWith(app, admin, 'helper', ['panel.access'])
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as net.AddressInfo).port
  const counts = async () => {
    const tables = ['shoutbox_shouts', 'activity_logs', 'users', 'roles', 'addon_config', 'shoutbox_events']
    return Object.fromEntries(await Promise.all(tables.map(async table =>
      [table, Number((await app.db(table).count<Array<{ n: number }>>({ n: '*' }))[0]!.n)])))
  }
  const before = await counts()

  for (const c of CASES) {
    const cookie = c.as === 'nobody' ? undefined : c.as === 'helper' ? helper : admin
    const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(typeof c.body === 'string' ? c.body : JSON.stringify(c.body))
    const response = await new Promise<{ status: number, text: string }>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1', port, method: c.method ?? 'GET', path: c.path,
        headers: { ...(cookie === undefined ? {} : { cookie }), ...c.headers, ...(body === undefined ? {} : { 'content-length': body.length }) }
      }, res => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', chunk => { text += chunk })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      })
      request.on('error', reject)
      request.end(body)
    })
    let parsed: Record<string, unknown> | string
    try {
      parsed = JSON.parse(response.text) as Record<string, unknown>
    } catch {
      parsed = response.text
    }
    const expected = typeof c.expect === 'string' ? { error: c.expect } : c.expect
    if (typeof c.expect === 'string') t.match([response.status, parsed], [c.status, { result: 'error', ...expected }], c.name)
    else t.same([response.status, parsed], [c.status, expected], c.name)
  }
  t.same(await counts(), before, 'nothing was stored')

  t.test('SQL and HTML metacharacters are stored and returned verbatim', async t => {
    const messages = ["Robert'); DROP TABLE shoutbox_shouts;--", '<script>alert(1)</script> & <b>bold</b>', '${7*7} {{7*7}} %s %n \\ " \'', '😀 שלום مرحبا 你好']
    for (const message of messages) {
      const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message } })
      t.equal(response.statusCode, 200)
    }
    const listed = (await app.inject({ url: '/api/shoutbox/list' })).json().shouts.map((s: Shout) => s.message)
    t.same(listed, [...messages].reverse())
  })

  t.test('garbage on a raw socket gets a 400 in the envelope; the process keeps serving', async t => {
    const garbage: Array<[string, Buffer | string, number]> = [
      ['binary noise', Buffer.from([0, 1, 2, 3, 255, 254, 13, 10, 13, 10]), 400],
      ['an unknown method', 'HELLO /api/shoutbox/list HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['a bad header name', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400],
      ['a 100 KB request line', `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ['64 KB of headers', `GET / HTTP/1.1\r\nHost: x\r\n${'X-Pad: ' + 'p'.repeat(1000) + '\r\n'}`.repeat(1) + `${'X-Pad: ' + 'p'.repeat(1000) + '\r\n'}`.repeat(64) + '\r\n', 431],
      ['a content-length that lies', 'POST /panel/api/shoutbox HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}', 400],
      ['both content-length and chunked', 'POST /panel/api/shoutbox HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400]
    ]
    for (const [name, bytes, status] of garbage) {
      const answer = parseResponse(await rawRequest(port, bytes))
      t.same([answer.status, answer.body], [status, { result: 'error', error: 'BAD_REQUEST' }], name)
    }
    const half = net.connect(port, '127.0.0.1')
    half.on('error', () => {})
    half.write('POST /panel/api/shoutbox HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"mess')
    half.destroy()
    const health = await app.inject({ url: '/api/health' })
    t.same([health.statusCode, health.json()], [200, { result: 'ok', database: 'up' }], 'still answering')
  })

  t.test('a URL the router cannot decode: the envelope and every answer\'s headers, the path not echoed, the Origin rule first', async t => {
    const envelope = (raw: string, name: string) => {
      const answer = parseResponse(raw)
      t.match(answer.headers, /^content-type: application\/json; charset=utf-8$/mi, `${name}: JSON with its charset`)
      t.match(answer.headers, /^x-content-type-options: nosniff$/mi, `${name}: nosniff`)
      t.notMatch(raw, /%ff|%c0|%e0|FST_ERR/i, `${name}: neither the path nor Fastify's code in the answer`)
      return [answer.status, answer.body]
    }
    const badUrl = bad('url must be a path of valid percent-encoded UTF-8')
    for (const path of ['/api/shoutbox/%ff', '/panel/api/%c0%af', '/api/shoutbox/%e0%a4%a', '/api/nothing/%']) {
      const get = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
      t.same(envelope(get, `GET ${path}`), [400, badUrl], `GET ${path}`)
    }
    const post = (origin: string) => `POST /api/shoutbox/%ff HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${origin}Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`
    t.same(envelope(await rawRequest(port, post('Origin: http://evil.example\r\n')), 'cross-site POST'), [403, code('INVALID_ORIGIN')],
      'a cross-site POST to a bad URL is refused for its origin, as on every path')
    t.same(envelope(await rawRequest(port, post(`Origin: http://127.0.0.1:${port}\r\n`)), 'same-site POST'), [400, badUrl],
      'a same-site POST to a bad URL is a bad request')
    t.same(envelope(await rawRequest(port, post('')), 'POST without Origin'), [400, badUrl], 'so is one from a client that is not a browser')
  })

  t.test('a path parameter over the router\'s limit: 400 in the envelope, not Fastify\'s 414 echoing it', async t => {
    const raw = await rawRequest(port, `GET /api/shoutbox/shouts/${'1'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    const answer = parseResponse(raw)
    t.same([answer.status, answer.body], [400, bad('params must not be longer than 200 characters')])
    t.match(answer.headers, /^content-type: application\/json; charset=utf-8$/mi)
    t.match(answer.headers, /^x-content-type-options: nosniff$/mi)
    t.notMatch(raw, /1{201}/, 'the parameter is not echoed')
  })

  t.test('HTTP/1.1 without Host: 400 in the envelope (not Node\'s bare one), and the connection closes', async t => {
    const answer = parseResponse(await rawRequest(port, 'GET /api/shoutbox/list HTTP/1.1\r\n\r\n'))
    t.same([answer.status, answer.body], [400, bad('headers must have a Host header in HTTP/1.1')])
    t.match(answer.headers, /^content-type: application\/json; charset=utf-8$/mi)
    t.match(answer.headers, /^x-content-type-options: nosniff$/mi)
    t.match(answer.headers, /^connection: close$/mi)
    const old = parseResponse(await rawRequest(port, 'GET /api/health HTTP/1.0\r\n\r\n'))
    t.same([old.status, old.body], [200, { result: 'ok', database: 'up' }], 'HTTP/1.0 needs no Host')
  })

  t.test('500 idle connections do not stop others from being served', async t => {
    const idle = await Promise.all(Array.from({ length: 500 }, () => new Promise<net.Socket>(resolve => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket))
      socket.on('error', () => {})
    })))
    t.teardown(() => idle.forEach(s => s.destroy()))
    const answer = await fetch(`http://127.0.0.1:${port}/api/shoutbox/list`)
    t.equal(answer.status, 200)
  })

  t.test('every answer says nosniff, pages and files included', async t => {
    for (const path of ['/api/shoutbox/list', '/api/nothing', '/panel/', '/', '/addons/shoutbox/ui/widget.js']) {
      const answer = await fetch(`http://127.0.0.1:${port}${path}`)
      t.equal(answer.headers.get('x-content-type-options'), 'nosniff', path)
    }
  })
})

t.test('slow clients are cut off: headers must arrive in time', async t => {
  const app = await build(t, { serverTimeouts: { requestMs: 1500, headersMs: 1000, keepAliveMs: 1000, idleSocketMs: 5000, checkEveryMs: 250 } })
  await setUp(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as net.AddressInfo).port
  const started = Date.now()
  const socket = net.connect(port, '127.0.0.1')
  socket.on('error', () => {})
  const closed = new Promise<string>(resolve => {
    let received = ''
    socket.on('data', chunk => { received += chunk.toString() })
    socket.on('close', () => resolve(received))
  })
  // One header byte every 300 ms: a slowloris that would hold the socket forever.
  const drip = setInterval(() => socket.write('X'), 300)
  socket.write('GET /api/shoutbox/list HTTP/1.1\r\nHost: x\r\nX-Slow: ')
  const received = await closed
  clearInterval(drip)
  const after = Date.now() - started
  t.ok(after < 10_000, `closed after ${after} ms (the drip alone would hold it forever)`)
  t.match(parseResponse(received), { status: 408, body: { result: 'error', error: 'REQUEST_TIMEOUT' } })
})
