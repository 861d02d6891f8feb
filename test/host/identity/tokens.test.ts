import { createHash, randomBytes } from 'node:crypto'
import t, { type Test as Tap } from 'tap'
import { ADMIN, build, login, setUp, type App } from '../../helpers/app.js'
import { DB_KIND, testDatabase } from '../../helpers/database.js'
import { eventually } from '../../helpers/eventually.js'
import { ACCOUNT_PASSWORD, account, memberRoleId, roleWith, snapshot } from '../../helpers/identity.js'
import { answer, as, error, type Inject } from '../../helpers/requests.js'

/** CONTRACT §18: API tokens (`Authorization: Bearer sbx_…`) and bot accounts. */

const OWN = '/api/users/me/tokens'
const DAY_MS = 24 * 60 * 60 * 1000
const SECRET_SHAPE = /^sbx_[A-Za-z0-9_-]{43}$/
const TOKEN_KEYS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'permissions']
const POST = 'addon.shoutbox.post'
const MANAGE_SHOUTBOX = 'addon.shoutbox.manage.shoutbox'

interface Token { id: number, name: string, permissions: string[], createdAt: number, expiresAt: number, lastUsedAt: number | null }
interface Made { result: 'ok', token: Token, secret: string }
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** The sign-in throttle's clock: it moves only when a test moves it, so a wait never runs out under a slow machine. */
let clock = Date.now()

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
/** A guess with a token's shape: what a brute-forcer sends. */
const guess = (): string => 'sbx_' + randomBytes(32).toString('base64url')
let shouts = 0
/** A message never sent before (a repeated one is refused as a duplicate). */
const message = (): string => `shout number ${++shouts}`

/** Requests sent as the holder of `secret` (`Authorization: Bearer`, no cookie) from `address`, with `headers` besides. */
function bearer (app: App, secret: string, address = '127.0.0.1', headers: Record<string, string> = {}) {
  const send = (method: Method, url: string, payload?: Record<string, unknown>): Promise<Inject> => app.inject({
    method, url, remoteAddress: address, headers: { authorization: `Bearer ${secret}`, ...headers }, ...(payload === undefined ? {} : { payload })
  })
  return {
    send,
    get: (url: string) => send('GET', url),
    post: (url: string, payload: Record<string, unknown>) => send('POST', url, payload),
    shout: (text = message()) => send('POST', '/api/shoutbox', { message: text })
  }
}

/** `cookie`'s holder makes a token of their own (a posting one unless `body` says otherwise). */
async function ownToken (app: App, cookie: string, body: Record<string, unknown> = {}): Promise<Made> {
  const response = await as(app, cookie).post(OWN, { name: 'a script', permissions: [POST], ...body })
  if (response.statusCode !== 200) throw new Error(`token: ${response.statusCode} ${response.body}`)
  return response.json()
}

async function botToken (app: App, cookie: string, botId: number, body: Record<string, unknown> = {}): Promise<Made> {
  const response = await as(app, cookie).post(`/api/panel/users/${botId}/tokens`, { name: 'a bot\'s', permissions: [POST], ...body })
  if (response.statusCode !== 200) throw new Error(`bot token: ${response.statusCode} ${response.body}`)
  return response.json()
}

/** A bot account made by the administrator: its id. */
async function makeBot (app: App, admin: string, username: string, roleId: number): Promise<number> {
  const response = await as(app, admin).post('/api/panel/users', { username, email: `${username}@example.org`, roleId, bot: true })
  if (response.statusCode !== 200) throw new Error(`bot: ${response.statusCode} ${response.body}`)
  return response.json().user.id as number
}

const idOf = async (app: App, username: string): Promise<number> => (await app.db('users').where({ username }).first<{ id: number }>('id')).id
const tokenRows = (app: App, userId: number): Promise<Array<Record<string, unknown>>> => app.db('api_tokens').where({ user_id: userId }).orderBy('id')
const count = async (app: App, table: string, where: Record<string, unknown> = {}): Promise<number> =>
  Number((await app.db(table).where(where).count<Array<{ n: string | number }>>({ n: '*' }))[0]!.n)
const listed = async (app: App, cookie: string, url = OWN): Promise<Token[]> => (await as(app, cookie).get(url)).json().tokens

/** The answer to a shout posted with a token: 200 and the shout's author. */
const shoutBy = (response: Inject): [number, unknown] => [response.statusCode, response.statusCode === 200 ? response.json().shout.username : response.json()]

t.test('API tokens and bot accounts', async t => {
  const app = await build(t, { throttle: { now: () => clock } })
  const admin = await setUp(app)
  const memberRole = await memberRoleId(app, admin)
  // Token posts come fast here: the board's flood rules and auto-mute are other files' business.
  t.equal((await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, autoMuteAfter: 0 })).statusCode, 200)
  const moderatorRole = await roleWith(app, admin, 'Moderators', ['panel.access', POST, MANAGE_SHOUTBOX])
  const mira = await account(app, admin, 'mira')
  const miraId = await idOf(app, 'mira')
  const bora = await account(app, admin, 'bora')

  t.test('a member makes, lists and revokes tokens of their own', async t => {
    const before = Date.now()
    const created = await as(app, mira).post(OWN, { name: 'deploy notices', permissions: [POST] })
    const after = Date.now()
    t.equal(created.statusCode, 200, created.body)
    const made = created.json() as Made
    t.same(Object.keys(made).sort(), ['result', 'secret', 'token'])
    t.same(Object.keys(made.token).sort(), TOKEN_KEYS)
    const { secret, token } = made
    t.ok(SECRET_SHAPE.test(secret), `sbx_ and 32 random bytes, base64url: ${secret}`)
    t.strictSame(token, { id: token.id, name: 'deploy notices', permissions: [POST], createdAt: token.createdAt, expiresAt: token.createdAt + 90 * DAY_MS, lastUsedAt: null })
    t.ok(token.createdAt >= before && token.createdAt <= after, 'created now; 90 days unless told')

    const [row] = await tokenRows(app, miraId)
    t.equal(row!.secret_hash, sha256(secret), 'the table keeps the SHA-256 of the secret')
    const table = JSON.stringify(await app.db('api_tokens').select())
    t.notOk(table.includes(secret.slice(4)), 'and never the secret')

    for (const days of [1, 365]) {
      const { token, secret: other } = await ownToken(app, mira, { name: `${days} days`, expiresInDays: days })
      t.equal(token.expiresAt - token.createdAt, days * DAY_MS, `expiresInDays ${days}`)
      t.not(other, secret, 'each token its own secret')
    }
    const stored = await count(app, 'api_tokens')
    const refused: Array<Record<string, unknown>> = [
      { expiresInDays: 0 }, { expiresInDays: 366 }, { expiresInDays: 1.5 }, { expiresInDays: '7' }, { expiresInDays: -1 }, { expiresInDays: null },
      { name: '' }, { name: 'x'.repeat(101) }, { permissions: [] }, { permissions: POST }, { permissions: [''] }, { secret: guess() }, { userId: 1 }
    ]
    for (const change of refused) {
      const response = await as(app, mira).post(OWN, { name: 'bad', permissions: [POST], ...change })
      t.same([response.statusCode, response.json().error], [400, 'BAD_REQUEST'], JSON.stringify(change))
    }
    t.same([(await as(app, mira).post(OWN, { permissions: [POST] })).statusCode, (await as(app, mira).post(OWN, { name: 'x' })).statusCode], [400, 400], 'name and permissions are required')
    t.equal(await count(app, 'api_tokens'), stored, 'nothing stored')

    const list = await as(app, mira).get(OWN)
    t.equal(list.statusCode, 200)
    const tokens = list.json().tokens as Token[]
    t.same(tokens.map(token => token.name), ['365 days', '1 days', 'deploy notices'], 'the newest first')
    for (const listedToken of tokens) t.same(Object.keys(listedToken).sort(), TOKEN_KEYS, 'no secret in the list')
    t.notOk(list.body.includes('sbx_') || list.body.includes('secret'), 'no secret, nor its hash, in the list')
    t.notOk(list.body.includes(row!.secret_hash as string))
    t.same(await listed(app, bora), [], 'another member sees none of them')

    const used = Date.now()
    t.same(shoutBy(await bearer(app, secret).shout()), [200, 'mira'])
    const { value: lastUsedAt, ms } = await eventually(async () => (await listed(app, mira)).find(listedToken => listedToken.id === token.id)!.lastUsedAt, at => at !== null, 5000)
    t.ok(ms < Infinity && lastUsedAt! >= used && lastUsedAt! <= Date.now(), `lastUsedAt written after a use (${ms} ms)`)

    await t.test('attack: another member revokes it by its id', async t => {
      t.same(answer(await as(app, bora).delete(`${OWN}/${token.id}`)), [404, error('NOT_FOUND')])
      t.same(shoutBy(await bearer(app, secret).shout()), [200, 'mira'], 'still works')
    })

    t.same(answer(await as(app, mira).delete(`${OWN}/${token.id}`)), [200, { result: 'ok' }])
    t.same((await listed(app, mira)).map(listedToken => listedToken.name), ['365 days', '1 days'])
    t.equal(await count(app, 'api_tokens', { id: token.id }), 0)
    t.same(answer(await bearer(app, secret, '10.1.0.1').shout()), [401, error('NOT_LOGGED_IN')], 'revoked at once')
    t.same(answer(await as(app, mira).delete(`${OWN}/${token.id}`)), [404, error('NOT_FOUND')], 'and only once')

    const logged = await app.db('activity_logs').whereIn('type', ['CREATED_TOKEN', 'REVOKED_TOKEN']).orderBy('id').select('type', 'user_id', 'username', 'details')
    const entry = (type: string, name: string) => ({ type, user_id: miraId, username: 'mira', details: { token: name, user: 'mira', targetUserId: miraId } })
    t.same(logged, [entry('CREATED_TOKEN', 'deploy notices'), entry('CREATED_TOKEN', '1 days'), entry('CREATED_TOKEN', '365 days'), entry('REVOKED_TOKEN', 'deploy notices')])
    t.notOk(JSON.stringify(await app.db('activity_logs').select()).includes(secret.slice(4)), 'no secret in the log')
  })

  t.test('a token acts as its user, with no cookie, and the Origin check is not for it', async t => {
    const { secret } = await ownToken(app, mira)
    t.same(answer(await bearer(app, secret).get('/api/auth/me')), [200, { result: 'ok', user: { id: miraId, username: 'mira', role: { id: memberRole, name: 'member' }, permissions: [POST] } }])
    const cross = { origin: 'https://evil.example' }
    const posted = await bearer(app, secret, '127.0.0.1', cross).shout('from a script')
    t.same(shoutBy(posted), [200, 'mira'])
    t.equal(posted.json().shout.message, 'from a script')
    const before = await count(app, 'shoutbox_shouts')
    const forged = await app.inject({ method: 'POST', url: '/api/shoutbox', headers: { cookie: mira, ...cross }, payload: { message: message() } })
    t.same(answer(forged), [403, error('INVALID_ORIGIN')], 'the cookie from another site is refused')

    await t.test('attack: a cross-site request carrying the admin\'s cookie and a bearer header acts as the token, never the cookie', async t => {
      const both = (secretOf: string) => bearer(app, secretOf, '127.0.0.1', { ...cross, cookie: admin })
      t.same(answer(await both(secret).post('/api/panel/shoutbox', { message: 'as the admin?' })), [403, error('NO_PERMISSION')])
      t.same(shoutBy(await both(secret).shout()), [200, 'mira'])
      t.same(answer(await both(secret).post('/api/auth/logout', {})), [403, error('NO_PERMISSION')])
      t.same(answer(await both(guess()).post('/api/panel/shoutbox', { message: 'a wrong token' })), [401, error('NOT_LOGGED_IN')], 'a wrong token never falls back to the cookie')
      t.equal((await as(app, admin).get('/api/auth/me')).statusCode, 200, 'the admin is still signed in')
    })
    t.equal(await count(app, 'shoutbox_shouts'), before + 1, 'only the token\'s shout was stored')
  })

  t.test('attack: a token acts with no more than it was given', async t => {
    const moda = await account(app, admin, 'moda', moderatorRole)
    const modaId = await idOf(app, 'moda')
    const narrow = await ownToken(app, moda, { permissions: [POST] })
    t.same((await bearer(app, narrow.secret).get('/api/auth/me')).json().user.permissions, [POST], 'it acts with what it was given')
    const shoutsBefore = await count(app, 'shoutbox_shouts')
    t.same(answer(await bearer(app, narrow.secret).post('/api/panel/shoutbox', { message: 'from the panel' })), [403, error('NO_PERMISSION')], 'a moderator\'s posting token opens no panel')
    t.same(shoutBy(await bearer(app, narrow.secret).shout()), [200, 'moda'], 'but posts')

    const panelOnly = await ownToken(app, admin, { permissions: ['panel.access', POST] })
    t.same(answer(await bearer(app, panelOnly.secret).post('/api/panel/shoutbox', { message: 'from the panel' })), [403, error('NO_PERMISSION')], 'an admin\'s token without the node cannot publish')
    t.same(answer(await bearer(app, panelOnly.secret).get('/api/panel/shoutbox/mutes')), [403, error('NO_PERMISSION')])
    t.equal(await count(app, 'shoutbox_shouts'), shoutsBefore + 1, 'nothing published')
    const publisher = await ownToken(app, admin, { permissions: ['panel.access', MANAGE_SHOUTBOX] })
    t.same(answer(await bearer(app, publisher.secret).post('/api/panel/shoutbox', { message: 'published by a token' })), [200, { result: 'ok' }], 'with the node it can')

    const tokensBefore = await count(app, 'api_tokens')
    const logBefore = await count(app, 'activity_logs')
    for (const permissions of [['panel.manage.users'], ['*'], [POST, 'panel.manage.roles'], ['addon.shoutbox.no-such-node']]) {
      t.same(answer(await as(app, moda).post(OWN, { name: 'more', permissions })), [403, error('NO_PERMISSION')], `a moderator asks for ${permissions.join(', ')}`)
    }
    t.equal(await count(app, 'api_tokens'), tokensBefore, 'nothing stored')
    t.equal((await tokenRows(app, modaId)).length, 1)
    t.equal(await count(app, 'activity_logs'), logBefore, 'nothing logged')
  })

  t.test('attack: a token loses at once what its user loses', async t => {
    const posters = await roleWith(app, admin, 'Posters', [POST])
    const kemal = await account(app, admin, 'kemal', moderatorRole)
    const kemalId = await idOf(app, 'kemal')
    const { secret } = await ownToken(app, kemal, { permissions: ['panel.access', MANAGE_SHOUTBOX, POST] })
    const token = bearer(app, secret, '10.2.0.1')
    const publish = () => token.post('/api/panel/shoutbox', { message: message() })
    t.equal((await publish()).statusCode, 200)
    t.equal((await publish()).statusCode, 200, 'the token is known to the process now')

    t.equal((await as(app, admin).put(`/api/panel/users/${kemalId}`, { roleId: posters })).statusCode, 200)
    t.same(answer(await publish()), [403, error('NO_PERMISSION')], 'another role without the node: refused at once')
    t.same(shoutBy(await token.shout()), [200, 'kemal'], 'what the new role holds still works')

    t.equal((await as(app, admin).put(`/api/panel/roles/${posters}`, { name: 'Posters', permissions: [] })).statusCode, 200)
    t.same(answer(await token.shout()), [403, error('NO_PERMISSION')], 'the role loses the node: refused at once')
    t.equal((await as(app, admin).put(`/api/panel/roles/${posters}`, { name: 'Posters', permissions: [POST] })).statusCode, 200)
    t.same(shoutBy(await token.shout()), [200, 'kemal'])

    t.equal((await as(app, admin).put(`/api/panel/users/${kemalId}`, { disabled: true })).statusCode, 200)
    t.same(answer(await token.shout()), [401, error('NOT_LOGGED_IN')], 'disabled: refused at once')
    t.same(answer(await token.get('/api/auth/me')), [401, error('NOT_LOGGED_IN')])

    t.equal((await as(app, admin).put(`/api/panel/users/${kemalId}`, { disabled: false })).statusCode, 200)
    t.equal((await token.get('/api/auth/me')).statusCode, 200, 'enabled again (the tokens were kept)')
    t.equal((await as(app, admin).delete(`/api/panel/users/${kemalId}`)).statusCode, 200)
    t.same(answer(await token.shout()), [401, error('NOT_LOGGED_IN')], 'deleted: refused at once')
    t.same(await tokenRows(app, kemalId), [], 'and its tokens are gone')
  })

  t.test('attack: an administrator\'s `*` token reaches no token, password, user, role, setting or addon management', async t => {
    const { secret, token } = await ownToken(app, admin, { name: 'everything', permissions: ['*'] })
    const all = bearer(app, secret)
    t.equal((await all.get('/api/panel/logs/activity')).statusCode, 200, 'it opens the panel')
    t.same(answer(await all.post('/api/panel/shoutbox', { message: 'the admin\'s token publishes' })), [200, { result: 'ok' }])
    const botId = await makeBot(app, admin, 'closedbot', memberRole)
    const botsToken = await botToken(app, admin, botId)
    const helpers = await roleWith(app, admin, 'Helpers', ['panel.access'])
    const calls: Array<[Method, string, Record<string, unknown>?]> = [
      ['POST', OWN, { name: 'another', permissions: ['*'] }],
      ['GET', OWN],
      ['DELETE', `${OWN}/${token.id}`],
      ['GET', '/api/panel/users'],
      ['POST', '/api/panel/users', { username: 'mallory', email: 'mallory@example.org', password: 'a long password', roleId: 1 }],
      ['POST', '/api/panel/users', { username: 'mallorybot', email: 'mallorybot@example.org', roleId: 1, bot: true }],
      ['PUT', `/api/panel/users/${miraId}`, { roleId: 1 }],
      ['PUT', `/api/panel/users/${miraId}`, { password: 'mallory knows this one' }],
      ['PUT', `/api/panel/users/${miraId}`, { disabled: true }],
      ['DELETE', `/api/panel/users/${miraId}`],
      ['POST', `/api/panel/users/${botId}/tokens`, { name: 'more', permissions: [POST] }],
      ['GET', `/api/panel/users/${botId}/tokens`],
      ['DELETE', `/api/panel/users/${botId}/tokens/${botsToken.token.id}`],
      ['GET', '/api/panel/roles'],
      ['POST', '/api/panel/roles', { name: 'Mallory', permissions: ['panel.access'] }],
      ['PUT', `/api/panel/roles/${helpers}`, { name: 'Helpers', permissions: ['panel.access', 'panel.manage.users'] }],
      ['GET', '/api/panel/settings'],
      ['PUT', '/api/panel/settings', { signUp: true }],
      ['POST', '/api/auth/password', { currentPassword: ADMIN.password, newPassword: 'mallory was here' }],
      ['GET', '/api/panel/shoutbox/config'],
      ['PUT', '/api/panel/shoutbox/config', { maxMessageLength: 5 }],
      ['GET', '/api/panel/addons'],
      ['PUT', '/api/panel/addons/shoutbox', { enabled: false }],
      ['POST', '/api/auth/logout']
    ]
    const state = async () => ({
      ...await snapshot(app),
      tokens: await app.db('api_tokens').orderBy('id').select(),
      settings: await app.db('settings').select(),
      addonConfig: await app.db('addon_config').orderBy(['addon_id', 'key']).select(),
      addonState: await app.db('addon_state').select()
    })
    const before = await state()
    for (const [method, url, payload] of calls) {
      const response = await all.send(method, url, payload)
      t.same(answer(response), [403, error('NO_PERMISSION')], `${method} ${url} ${JSON.stringify(payload ?? '')}`)
    }
    t.same(await state(), before, 'nothing changed')
    t.same(shoutBy(await bearer(app, botsToken.secret).shout()), [200, 'closedbot'], 'the bot\'s token is still there')
    t.same(shoutBy(await all.shout()), [200, 'admin'], 'and the admin\'s, which revoked nothing')
  })

  t.test('attack: guessing tokens from one address', async t => {
    const attacker = '10.66.0.1'
    const fresh = await ownToken(app, mira, { name: 'not used yet' })
    const known = await ownToken(app, mira, { name: 'in use elsewhere' })
    t.same(shoutBy(await bearer(app, known.secret, '10.66.0.9').shout()), [200, 'mira'], 'a token in use, which the process remembers')
    const wrong = [
      ...Array.from({ length: 10 }, guess),
      'sbx_short', 'sbx_' + 'A'.repeat(44), 'sbx_' + 'A'.repeat(42) + '!', 'SBX_' + fresh.secret.slice(4), fresh.secret.slice(0, -1),
      fresh.secret + 'A', fresh.secret.slice(4), 'not-a-token', 'sbx_' + '.'.repeat(43), `${fresh.secret},${fresh.secret}`
    ]
    t.equal(wrong.length, 20)
    for (const secret of wrong) {
      t.same(answer(await bearer(app, secret, attacker).shout()), [401, error('NOT_LOGGED_IN')], secret)
    }
    const next = await bearer(app, guess(), attacker).shout()
    t.same(answer(next), [429, error('TOO_MANY_REQUESTS')], 'past 20 failures the address waits')
    t.ok(/^[1-9]\d*$/.test(next.headers['retry-after'] as string), `Retry-After: ${next.headers['retry-after']}`)
    const right = await bearer(app, fresh.secret, attacker).shout()
    t.same(answer(right), [429, error('TOO_MANY_REQUESTS')], 'even a right token, so a guess teaches nothing')
    t.ok(/^[1-9]\d*$/.test(right.headers['retry-after'] as string))
    const signIn = (address: string) => app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: address, payload: { username: ADMIN.username, password: ADMIN.password } })
    t.same(answer(await signIn(attacker)), [429, error('TOO_MANY_REQUESTS')], 'and a password sign-in from there waits too')
    const remembered = await bearer(app, known.secret, attacker).shout()
    // The lockout stops guessing, and a guess is never a token this process already
    // resolved: a bot sharing the guesser's address keeps posting with its known token.
    t.equal(remembered.statusCode, 200, 'a right token this process already resolved still acts')

    t.same(shoutBy(await bearer(app, fresh.secret, '10.66.0.2').shout()), [200, 'mira'], 'another address is unaffected')
    t.equal((await signIn('10.66.0.2')).statusCode, 200)

    clock += 60_000
    t.same(shoutBy(await bearer(app, fresh.secret, attacker).shout()), [200, 'mira'], 'once the wait is over')

    await t.test('wrong passwords and wrong tokens share one count per address', async t => {
      const shared = '10.66.0.3'
      const unused = await ownToken(app, mira, { name: 'not used either' })
      for (let i = 0; i < 10; i++) {
        const response = await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: shared, payload: { username: `nobody${i}`, password: 'a wrong password' } })
        t.equal(response.statusCode, 401)
      }
      for (let i = 0; i < 10; i++) t.equal((await bearer(app, guess(), shared).shout()).statusCode, 401)
      t.same(answer(await bearer(app, unused.secret, shared).shout()), [429, error('TOO_MANY_REQUESTS')])
      t.same(answer(await signIn(shared)), [429, error('TOO_MANY_REQUESTS')])
    })
  })

  t.test('bot accounts', async t => {
    const botsBefore = await count(app, 'users')
    const made = await as(app, admin).post('/api/panel/users', { username: 'deploybot', email: 'deploybot@example.org', roleId: memberRole, bot: true })
    t.equal(made.statusCode, 200, made.body)
    const botId = made.json().user.id as number
    t.same(made.json(), { result: 'ok', user: { id: botId, username: 'deploybot', email: 'deploybot@example.org', roleId: memberRole, disabled: false, bot: true, createdAt: made.json().user.createdAt } })
    const people = (await as(app, admin).get('/api/panel/users')).json().users as Array<{ username: string, bot: boolean }>
    t.same(people.filter(user => user.bot).map(user => user.username), ['closedbot', 'deploybot'])
    t.ok(people.filter(user => !user.bot).some(user => user.username === 'mira'), 'people are bot: false')

    for (const body of [
      { username: 'pwbot', email: 'pwbot@example.org', roleId: memberRole, bot: true, password: 'a long password' },
      { username: 'nopw', email: 'nopw@example.org', roleId: memberRole },
      { username: 'nopw2', email: 'nopw2@example.org', roleId: memberRole, bot: false }
    ]) {
      const response = await as(app, admin).post('/api/panel/users', body)
      t.same([response.statusCode, response.json().error], [400, 'BAD_REQUEST'], JSON.stringify(body))
    }
    t.equal(await count(app, 'users'), botsBefore + 1, 'only the bot was made')

    for (const [login, password] of [['deploybot', 'bot:no-password'], ['deploybot', ACCOUNT_PASSWORD], ['deploybot@example.org', 'anything at all'], ['DeployBot', 'no-password']]) {
      const response = await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '10.3.0.1', payload: { username: login, password } })
      t.same(answer(response), [401, error('INVALID_CREDENTIALS')], `${login} / ${password}`)
      t.same(response.cookies, [], 'no session')
    }

    const created = await as(app, admin).post(`/api/panel/users/${botId}/tokens`, { name: 'deploys', permissions: [POST] })
    t.equal(created.statusCode, 200, created.body)
    const { token, secret } = created.json() as Made
    t.ok(SECRET_SHAPE.test(secret))
    t.strictSame(token, { id: token.id, name: 'deploys', permissions: [POST], createdAt: token.createdAt, expiresAt: token.createdAt + 90 * DAY_MS, lastUsedAt: null })
    t.same((await tokenRows(app, botId)).map(row => row.secret_hash), [sha256(secret)])
    t.same(shoutBy(await bearer(app, secret).shout('deployed v1.2')), [200, 'deploybot'], 'the bot posts with it')
    const logged = await app.db('activity_logs').where({ type: 'CREATED_TOKEN' }).orderBy('id', 'desc').first('user_id', 'username', 'details')
    t.same(logged, { user_id: 1, username: 'admin', details: { token: 'deploys', user: 'deploybot', targetUserId: botId } })

    const list = await as(app, admin).get(`/api/panel/users/${botId}/tokens`)
    t.same((list.json().tokens as Token[]).map(listedToken => listedToken.id), [token.id])
    t.notOk(list.body.includes(secret.slice(4)))
    t.same(answer(await bearer(app, secret).post(OWN, { name: 'more', permissions: [POST] })), [403, error('NO_PERMISSION')], 'a bot\'s token makes no token')

    await t.test('attack: tokens for people, for others\' tokens, and by those who may not', async t => {
      const miraTokens = await tokenRows(app, miraId)
      const forMira = await as(app, admin).post(`/api/panel/users/${miraId}/tokens`, { name: 'as mira', permissions: [POST] })
      t.same([forMira.statusCode, forMira.json().error], [400, 'BAD_REQUEST'], 'a person makes their own')
      t.equal((await as(app, admin).get(`/api/panel/users/${miraId}/tokens`)).statusCode, 400, 'nor are their tokens listed here')
      t.same(answer(await as(app, admin).delete(`/api/panel/users/${botId}/tokens/${miraTokens[0]!.id as number}`)), [404, error('NOT_FOUND')], 'mira\'s token is not the bot\'s')
      t.same(await tokenRows(app, miraId), miraTokens, 'mira\'s tokens are untouched')
      t.same(answer(await as(app, admin).post('/api/panel/users/999999/tokens', { name: 'x', permissions: [POST] })), [404, error('NOT_FOUND')])

      const helper = await account(app, admin, 'helper', await roleWith(app, admin, 'Panel readers', ['panel.access']))
      const hr = await account(app, admin, 'usermanager', await roleWith(app, admin, 'User managers', ['panel.access', 'panel.manage.users']))
      const rootBot = await makeBot(app, admin, 'rootbot', 1)
      const attempts: Array<[string, string, number, string[]]> = [
        ['a member', mira, botId, [POST]],
        ['a panel user without MANAGE_USERS', helper, botId, [POST]],
        ['a user manager, for a bot holding a node the manager lacks', hr, botId, [POST]],
        ['a user manager, for an admin bot', hr, rootBot, ['panel.access']]
      ]
      for (const [who, cookie, id, permissions] of attempts) {
        t.same(answer(await as(app, cookie).post(`/api/panel/users/${id}/tokens`, { name: 'mine now', permissions })), [403, error('NO_PERMISSION')], `${who} makes one`)
        t.same(answer(await as(app, cookie).get(`/api/panel/users/${id}/tokens`)), [403, error('NO_PERMISSION')], `${who} lists them`)
        t.same(answer(await as(app, cookie).delete(`/api/panel/users/${id}/tokens/${token.id}`)), [403, error('NO_PERMISSION')], `${who} revokes one`)
      }
      t.same((await tokenRows(app, botId)).length, 1)
      t.same(await tokenRows(app, rootBot), [])
    })

    t.same(answer(await as(app, admin).delete(`/api/panel/users/${botId}/tokens/${token.id}`)), [200, { result: 'ok' }])
    t.same(await listed(app, admin, `/api/panel/users/${botId}/tokens`), [])
    t.same(answer(await bearer(app, secret, '10.3.0.2').shout()), [401, error('NOT_LOGGED_IN')], 'revoked at once')
    const revoked = await app.db('activity_logs').where({ type: 'REVOKED_TOKEN' }).orderBy('id', 'desc').first('username', 'details')
    t.same(revoked, { username: 'admin', details: { token: 'deploys', user: 'deploybot', targetUserId: botId } })
  })

  t.test('attack: 200 posts at once with one bot token', async t => {
    const botId = await makeBot(app, admin, 'burstbot', memberRole)
    const { secret } = await botToken(app, admin, botId)
    const before = await count(app, 'shoutbox_shouts')
    const answers = await Promise.all(Array.from({ length: 200 }, () => bearer(app, secret).shout()))
    const statuses = new Set(answers.map(response => response.statusCode))
    t.ok([...statuses].every(status => status === 200 || status === 429), `only 200 and 429: ${[...statuses].join(', ')}`)
    const ok = answers.filter(response => response.statusCode === 200)
    t.ok(ok.length > 0, `${ok.length} posted`)
    t.ok(ok.every(response => response.json().shout.username === 'burstbot'))
    t.equal(await count(app, 'shoutbox_shouts'), before + ok.length, 'each 200 one shout')
    t.equal((await tokenRows(app, botId)).length, 1, 'one token row')
    t.equal((await app.inject({ url: '/api/health' })).statusCode, 200, 'the process still answers')
    t.same(shoutBy(await bearer(app, secret).shout()), [200, 'burstbot'])
  })

  t.test('an expired token is refused', async t => {
    const { token, secret } = await ownToken(app, bora, { name: 'short-lived', expiresInDays: 1 })
    // Never used, so no process remembers it: the expiry is read from the table.
    await app.db('api_tokens').where({ id: token.id }).update({ expires_at: Date.now() - 1000 })
    t.same(answer(await bearer(app, secret, '10.4.0.1').shout()), [401, error('NOT_LOGGED_IN')])
    t.same(answer(await bearer(app, secret, '10.4.0.1').get('/api/auth/me')), [401, error('NOT_LOGGED_IN')])
    t.same((await listed(app, bora)).map(listedToken => listedToken.id), [token.id], 'still listed until revoked')
    t.equal((await as(app, bora).delete(`${OWN}/${token.id}`)).statusCode, 200)
  })

  t.test('attack: 60 tokens asked for at once: an account holds at most 50', async t => {
    await account(app, admin, 'hoarder')
    const hoarder = await login(app, 'hoarder', ACCOUNT_PASSWORD)
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => as(app, hoarder).post(OWN, { name: `t${i}`, permissions: [POST] })))
    t.same(answers.filter(response => response.statusCode === 200).length, 50)
    t.ok(answers.filter(response => response.statusCode !== 200).every(response => response.statusCode === 409 && response.json().error === 'CONFLICT'))
    t.equal((await tokenRows(app, await idOf(app, 'hoarder'))).length, 50)
  })
})

/**
 * Two host processes on one PostgreSQL: each remembers the tokens it has resolved, and
 * what another process does to a token or its user reaches it.
 */
t.test('tokens across processes', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const b = await build(t, { db })
  const admin = await setUp(a)
  t.equal((await as(a, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, autoMuteAfter: 0 })).statusCode, 200)
  await account(a, admin, 'mira')
  const miraId = await idOf(a, 'mira')
  /** Mira signed in afresh (a change to her account ends her sessions). */
  const mira = () => login(a, 'mira', ACCOUNT_PASSWORD)
  /** A token of mira's that `b` has used and remembers. */
  const rememberedOnB = async (t: Tap, name: string): Promise<Made> => {
    const made = await ownToken(a, await mira(), { name })
    t.same(shoutBy(await bearer(b, made.secret).shout()), [200, 'mira'])
    t.same(shoutBy(await bearer(b, made.secret).shout()), [200, 'mira'])
    return made
  }
  const refusedOnB = async (secret: string): Promise<number> =>
    (await eventually(async () => (await bearer(b, secret, '10.5.0.1').get('/api/auth/me')).statusCode, status => status === 401)).ms

  t.test('revoked on a: refused on b', async t => {
    const { token, secret } = await rememberedOnB(t, 'revoked')
    t.equal((await as(a, await mira()).delete(`${OWN}/${token.id}`)).statusCode, 200)
    const ms = await refusedOnB(secret)
    t.ok(ms < Infinity, `refused on b after ${ms} ms`)
    t.same(answer(await bearer(b, secret, '10.5.0.1').shout()), [401, error('NOT_LOGGED_IN')])
  })

  t.test('its user disabled on a: refused on b', async t => {
    const { secret } = await rememberedOnB(t, 'disabled')
    t.equal((await as(a, admin).put(`/api/panel/users/${miraId}`, { disabled: true })).statusCode, 200)
    const ms = await refusedOnB(secret)
    t.ok(ms < Infinity, `refused on b after ${ms} ms`)
    t.equal((await as(a, admin).put(`/api/panel/users/${miraId}`, { disabled: false })).statusCode, 200)
  })

  t.test('its user\'s role loses the node on a: refused on b', async t => {
    const posters = await roleWith(a, admin, 'Posters', ['addon.shoutbox.post'])
    t.equal((await as(a, admin).put(`/api/panel/users/${miraId}`, { roleId: posters })).statusCode, 200)
    const { secret } = await rememberedOnB(t, 're-roled')
    t.equal((await as(a, admin).put(`/api/panel/roles/${posters}`, { name: 'Posters', permissions: [] })).statusCode, 200)
    const { ms } = await eventually(async () => (await bearer(b, secret).shout()).statusCode, status => status === 403)
    t.ok(ms < Infinity, `refused on b after ${ms} ms`)
    t.equal((await as(a, admin).put(`/api/panel/roles/${posters}`, { name: 'Posters', permissions: ['addon.shoutbox.post'] })).statusCode, 200)
  })

  t.test('expired in the table: refused by a process that has not seen it', async t => {
    const { token, secret } = await ownToken(a, await mira(), { name: 'expiring', permissions: ['addon.shoutbox.post'] })
    t.equal((await bearer(a, secret).get('/api/auth/me')).statusCode, 200)
    await a.db('api_tokens').where({ id: token.id }).update({ expires_at: Date.now() - 1000 })
    t.same(answer(await bearer(b, secret, '10.5.0.2').get('/api/auth/me')), [401, error('NOT_LOGGED_IN')])
  })
})
