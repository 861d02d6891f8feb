import { once } from 'node:events'
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { Writable } from 'node:stream'
import t from 'tap'
import { ConditionLog } from '../../src/host/http/error-handler.js'
import { ADDRESS_SECRET_FILE } from '../../src/host/identity/address-secret.js'
import { safeUrl } from '../../src/host/logging.js'
import { InstallationRequired } from '../../src/sdk/index.js'
import { ADMIN, build, login, setUp } from '../helpers/app.js'
import { DB_KIND } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { serverStorage, startServer } from '../helpers/server.js'

/** Every line the app logs, at every level. */
function captureLog () {
  const lines: string[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      done()
    }
  })
  return { lines, text: () => lines.join('\n'), logger: { level: 'trace', stream } }
}

const VICTIM = { username: 'victim', email: 'victim.secret@example.org', password: 'victim password 1234' }
/** A client's address, which reaches no log line unless LOG_CLIENT_ADDRESSES=1. */
const CLIENT = '198.51.100.77'

t.test('logs hold no password, hash, session token, e-mail address or SQL parameter value', async t => {
  const log = captureLog()
  const app = await build(t, { logger: log.logger, config: { logRequests: true } })
  const admin = await setUp(app)
  const adminToken = admin.split('=')[1]!

  // A database error that quotes an e-mail address and a password hash: a trigger that
  // refuses every new user, naming both, in its message, its detail and its hint.
  await app.db.raw(`
    create function refuse_user() returns trigger language plpgsql as $$
    begin
      raise exception 'refusing % with %', new.email, new.password_hash
        using detail = 'Key (lower(email))=(' || new.email || ') hash ' || new.password_hash, hint = new.password_hash;
    end $$`)
  await app.db.raw('create trigger refuse_user before insert on users for each row execute function refuse_user()')
  const created = await app.inject({ method: 'POST', url: '/api/panel/users', headers: { cookie: admin }, payload: { ...VICTIM, roleId: 1 } })
  t.same([created.statusCode, created.json()], [500, { result: 'error', error: 'INTERNAL_SERVER_ERROR' }], 'an unexpected error, logged')
  await app.db.raw('drop trigger refuse_user on users')

  // The same error reached through the bare database, logged by hand under another key.
  const hash = await app.identity.passwords.hash(VICTIM.password)
  await app.db.raw('create trigger refuse_user before insert on users for each row execute function refuse_user()')
  const direct = await app.db('users').insert({ username: 'v2', email: VICTIM.email, password_hash: hash, role_id: 1, created_at: 1 }).catch((error: unknown) => error)
  await app.db.raw('drop trigger refuse_user on users')
  t.ok(direct instanceof Error, 'the insert failed')
  t.match(String((direct as Error).message), VICTIM.email, 'the database\'s own message quotes the address')
  app.log.error({ error: direct, cause: direct }, 'logged by an addon under other keys')
  app.log.warn({ err: new Error('wrapped', { cause: direct }) }, 'a wrapped database error')

  // Sign-ins with a session cookie and an Authorization header, from a client of its own.
  const session = await login(app, ADMIN.username, ADMIN.password)
  const sessionToken = session.split('=')[1]!
  await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: CLIENT, headers: { cookie: session, authorization: `Bearer ${sessionToken}`, 'x-forwarded-for': CLIENT }, payload: { username: VICTIM.email, password: VICTIM.password } })
  // Its address logged as it is by careless code.
  app.log.info({ ip: CLIENT, client: { remoteAddress: CLIENT, ips: [CLIENT] }, headers: { 'x-forwarded-for': CLIENT, forwarded: `for=${CLIENT}` } }, 'careless with an address')
  await app.inject({ url: '/api/auth/me', headers: { cookie: session } })
  // A body, a user row or a header object logged as they are by careless code.
  app.log.info({ body: { username: VICTIM.username, password: VICTIM.password }, user: { email: VICTIM.email, passwordHash: hash }, headers: { cookie: session } }, 'careless')
  // A secret in a URL's query string.
  await app.inject({ url: `/api/setup/status?setupToken=${sessionToken}&locale=tr` })

  const text = log.text()
  t.ok(log.lines.length > 10, `${log.lines.length} lines captured`)
  for (const [what, secret] of [
    ['the e-mail address', VICTIM.email], ['the admin\'s address', ADMIN.email],
    ['the password', VICTIM.password], ['the admin\'s password', ADMIN.password],
    ['the password hash', hash], ['any argon2id hash', '$argon2id$'], ['any scrypt hash', 'scrypt$'],
    ['the admin\'s session token', adminToken], ['the session token', sessionToken],
    ['the client\'s address', CLIENT]
  ] as const) {
    t.notOk(text.includes(secret), `${what} is not in the log`)
  }

  t.test('what is logged instead still says what failed', async t => {
    const unexpected = log.lines.map(line => JSON.parse(line)).find(line => line.msg === 'unexpected error')
    t.match(unexpected.err, { type: String, message: 'database error P0001', code: 'P0001', statement: /insert into "users"/ })
    t.match(unexpected.err.stack, /^\s+at /, 'the stack, without the message line')
    t.notOk('detail' in unexpected.err || 'hint' in unexpected.err || 'where' in unexpected.err || 'params' in unexpected.err || 'query' in unexpected.err)
    const addon = log.lines.map(line => JSON.parse(line)).find(line => line.msg === 'logged by an addon under other keys')
    t.match(addon.error, { message: 'database error P0001', code: 'P0001', routine: 'exec_stmt_raise' })
    t.match(addon.cause, addon.error)
    t.match(text, /setupToken=\[redacted\]&locale=tr/, 'the URL is logged with the secret blanked')
    t.match(text, /"body":"\[redacted\]","user":\{"email":"\[redacted\]","passwordHash":"\[redacted\]"\},"headers":\{"cookie":"\[redacted\]"\}/)
    const from = log.lines.map(line => JSON.parse(line)).find(line => line.req?.url === '/api/auth/login' && line.req.client === app.identity.addresses.pseudonym(CLIENT))
    t.same(Object.keys(from?.req ?? {}), ['method', 'url', 'host', 'client'], 'a request line names its client by the pseudonym of the day, without address or port')
    t.match(text, /"ip":"\[redacted\]","client":\{"remoteAddress":"\[redacted\]","ips":"\[redacted\]"\},"headers":\{"x-forwarded-for":"\[redacted\]","forwarded":"\[redacted\]"\}/)
  })
})

t.test('secret query parameters are blanked in logged URLs', async t => {
  t.equal(safeUrl('/api/x'), '/api/x')
  t.equal(safeUrl('/panel/?setupToken=abc&x=1'), '/panel/?setupToken=[redacted]&x=1')
  t.equal(safeUrl('/a?password=p&api_key=k&session=s&page=2'), '/a?password=[redacted]&api_key=[redacted]&session=[redacted]&page=2')
  t.equal(safeUrl('/hooks/incoming/12/AbC-dEf_123?x=1'), '/hooks/incoming/12/[redacted]?x=1', 'an incoming hook\'s secret, in its path')
  t.equal(safeUrl('/api/hooks/incoming/12/AbC-dEf_123'), '/api/hooks/incoming/12/[redacted]')
})

t.test('a client that closes its connection halfway through its body: one info line, no warning, no stack', async t => {
  const log = captureLog()
  const app = await build(t, { logger: log.logger, config: { logRequests: true } })
  await setUp(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const socket = net.connect((app.server.address() as net.AddressInfo).port, '127.0.0.1')
  await once(socket, 'connect')
  socket.write('POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"login":"adm')
  await eventually(() => log.lines.some(line => line.includes('/api/auth/login')), seen => seen)
  socket.destroy()
  const wentAway = 'the client closed the connection before its request was read'
  await eventually(() => log.lines.some(line => JSON.parse(line).msg === wentAway), seen => seen)
  const entries = log.lines.map(line => JSON.parse(line) as { level: number, msg: string, err?: unknown })
  t.same(entries.filter(entry => entry.level >= 40), [], 'not "service unavailable": the process is fine')
  t.equal(entries.find(entry => entry.msg === wentAway)?.level, 30)
  t.notOk(entries.some(entry => entry.err !== undefined), 'no stack')
})

t.test('a flood of 503s is a line a condition, without a stack, not a line a request', async t => {
  const log = captureLog()
  const app = await build(t, { logger: log.logger })
  // Before setup every call answers 503 INSTALLATION_REQUIRED: a crowd of anonymous GETs.
  const answers = await Promise.all(Array.from({ length: 300 }, () => app.inject({ url: '/api/shoutbox/list' })))
  t.same([...new Set(answers.map(a => `${a.statusCode} ${a.json().error}`))], ['503 INSTALLATION_REQUIRED'])
  const unavailable = log.lines.map(line => JSON.parse(line)).filter(line => line.msg === 'service unavailable')
  t.same(unavailable.map(line => [line.level, line.error]), [[40, 'INSTALLATION_REQUIRED']], 'one warning')
  t.notMatch(log.text(), /"stack"|\n\s+at /, 'no stack')
  t.ok(log.text().length < 10_000, `${log.text().length} bytes of log for 300 requests`)
})

t.test('ConditionLog: each kind when it begins, then a line a minute with how many more', async t => {
  let now = 1_000_000
  const conditions = new ConditionLog(60_000, () => now)
  const lines: Array<Record<string, unknown>> = []
  const request = { log: { warn: (fields: Record<string, unknown>, msg: string) => lines.push({ ...fields, msg }) } } as never
  const answer = (error: string) => ({ status: 503, body: { result: 'error' as const, error }, headers: {}, unexpected: false })
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
  for (let i = 0; i < 5; i++) conditions.note(request, answer('SERVICE_UNAVAILABLE'), refused)
  conditions.note(request, answer('INSTALLATION_REQUIRED'), new InstallationRequired())
  t.same(lines, [
    { error: 'SERVICE_UNAVAILABLE', cause: 'ECONNREFUSED', msg: 'service unavailable' },
    { error: 'INSTALLATION_REQUIRED', msg: 'service unavailable' }
  ], 'one line for each kind; the host\'s own conditions need no cause')
  now += 59_999
  conditions.note(request, answer('SERVICE_UNAVAILABLE'), refused)
  t.equal(lines.length, 2, 'quiet within the minute')
  now += 1
  conditions.note(request, answer('SERVICE_UNAVAILABLE'), refused)
  t.same(lines.at(-1), { error: 'SERVICE_UNAVAILABLE', cause: 'ECONNREFUSED', answeredSinceLastLine: 5, msg: 'service unavailable' }, 'then a line with the count')
})

t.test('the log --dev writes: no client address in clear, unless LOG_CLIENT_ADDRESSES=1', async t => {
  const storage = await serverStorage(t)
  // Behind one proxy (the test), the client is the address it forwards.
  const run = async (env: NodeJS.ProcessEnv): Promise<string> => {
    const server = await startServer(t, { args: ['--dev'], env: { ...storage.env, LOG_LEVEL: 'debug', TRUST_PROXY: '1', ...env } })
    const headers = { 'x-forwarded-for': CLIENT }
    await fetch(`${server.url}/api/health`, { headers })
    await fetch(`${server.url}/api/shoutbox/list`, { headers })
    await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'nobody', password: 'not a password' }) })
    await eventually(() => server.stdout(), log => log.split('request completed').length > 3)
    server.child.kill('SIGTERM')
    t.equal(await server.exited, 0)
    return server.stdout()
  }
  const log = await run({})
  t.match(log, /request completed/, 'pino-pretty\'s lines')
  t.notOk(log.includes(CLIENT), 'the forwarded client\'s address is in no line')
  t.notMatch(log, /remoteAddress|remotePort/)
  t.equal(log.replaceAll(/127\.0\.0\.1:\d+/g, '').includes('127.0.0.1'), false, 'nor the proxy\'s, except as the host\'s own address')
  t.match(log, /"client": "[\w-]{12}"/, 'the client as its pseudonym of the day')
  if (DB_KIND === 'embedded') {
    const mode = (await fs.stat(path.join(storage.env.DATA_DIR!, ADDRESS_SECRET_FILE))).mode & 0o777
    t.equal(mode, 0o600, 'the first start made the secret file in the data folder, mode 0600')
  }

  const inClear = await run({ LOG_CLIENT_ADDRESSES: '1' })
  t.match(inClear, new RegExp(`"remoteAddress": "${CLIENT.replaceAll('.', '\\.')}"`), 'with LOG_CLIENT_ADDRESSES=1, in clear')
})
