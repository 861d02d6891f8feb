import t from 'tap'
import { ADMIN, SETUP_TOKEN, build, setUp, type App } from '../helpers/app.js'
import { testDatabase } from '../helpers/database.js'

const tableExists = async (app: App, table: string): Promise<boolean> =>
  app.db.schema.hasTable(table)

t.test('before setup: addons are loaded but not initialised', async t => {
  const app = await build(t)
  t.notOk(await tableExists(app, 'shoutbox_shouts'), 'no addon tables yet')
  t.ok(await tableExists(app, 'users'), 'the host has its own tables')
  for (const url of ['/api/shoutbox/list', '/api/panel/shoutbox/config']) {
    const response = await app.inject({ url })
    t.same([response.statusCode, response.json()], [503, { result: 'error', error: 'INSTALLATION_REQUIRED' }], url)
  }
  const status = await app.inject({ url: '/api/setup/status' })
  t.same(status.json(), { result: 'ok', setupDone: false })
  const health = await app.inject({ url: '/api/health' })
  t.same([health.statusCode, health.json()], [200, { result: 'ok', database: 'up' }])
})

t.test('finishing setup initialises addons in the running process, no restart', async t => {
  const app = await build(t)
  const response = await app.inject({ method: 'POST', url: '/api/setup/finish', payload: ADMIN })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { result: 'ok', user: { id: 1, username: 'admin', role: { id: 1, name: 'admin' } } })
  t.ok(await tableExists(app, 'shoutbox_shouts'), 'the addon migrated')
  const list = await app.inject({ url: '/api/shoutbox/list' })
  t.same([list.statusCode, list.json()], [200, { result: 'ok', shouts: [] }])
  t.same((await app.inject({ url: '/api/setup/status' })).json(), { result: 'ok', setupDone: true })
})

t.test('setup happens once; concurrent attempts create one administrator', async t => {
  const app = await build(t)
  const attempts = await Promise.all([0, 1, 2].map(i => app.inject({
    method: 'POST', url: '/api/setup/finish', payload: { username: `admin${i}`, email: `a${i}@example.org`, password: 'long enough pw', setupToken: SETUP_TOKEN }
  })))
  t.same(attempts.map(r => r.statusCode).sort(), [200, 409, 409])
  const users = await app.db('users').count<Array<{ count: number }>>({ count: '*' })
  t.equal(Number(users[0]?.count), 1)
})

t.test('each migration runs once, tracked per owner, across restarts', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const first = await build(t, { db })
  await setUp(first)
  const ledger = async (app: typeof first) => app.db('schema_migrations').orderBy(['owner', 'name']).select('owner', 'name')
  const before = await ledger(first)
  t.same(before, [
    { owner: 'host', name: '001-platform' },
    { owner: 'host', name: '002-sign-in-attempts' },
    { owner: 'host', name: '003-user-disabled' },
    { owner: 'host', name: '004-members' },
    { owner: 'host', name: '005-retired-usernames' },
    { owner: 'host', name: '006-notifications' },
    { owner: 'host', name: '007-preferences' },
    { owner: 'host', name: '008-api-tokens' },
    { owner: 'host', name: '009-webhooks' },
    { owner: 'host', name: '010-address-keys' },
    { owner: 'host', name: '011-activity-retention' },
    { owner: 'host', name: '012-drop-address-keys' },
    { owner: 'host', name: '013-retired-username-hashes' },
    { owner: 'host', name: '014-webhook-lanes' },
    { owner: 'host', name: '015-mail' },
    { owner: 'host', name: '016-verified-addresses' },
    { owner: 'host', name: '017-mention-mails' },
    { owner: 'host', name: '018-preferred-locale' },
    { owner: 'host', name: '021-uploads' },
    { owner: 'host', name: '022-webhook-formats' },
    { owner: 'shoutbox', name: '001-create-shouts' },
    { owner: 'shoutbox', name: '002-create-events' },
    { owner: 'shoutbox', name: '003-deleted-shouts-leave-history' },
    { owner: 'shoutbox', name: '004-authors' },
    { owner: 'shoutbox', name: '005-search-index' },
    { owner: 'shoutbox', name: '006-create-pins' },
    { owner: 'shoutbox', name: '007-date-index' },
    { owner: 'shoutbox', name: '008-create-mutes' },
    { owner: 'shoutbox', name: '009-moderated-shouts' },
    { owner: 'shoutbox', name: '010-rooms' },
    { owner: 'shoutbox', name: '011-read-markers' },
    { owner: 'shoutbox', name: '012-conversation' },
    { owner: 'shoutbox', name: '013-ignores' },
    { owner: 'shoutbox', name: '014-watched-words' },
    { owner: 'shoutbox', name: '015-review' },
    { owner: 'shoutbox', name: '016-bot-shouts' },
    { owner: 'shoutbox', name: '017-ignore-changes' },
    { owner: 'shoutbox', name: '018-review-in-place' },
    { owner: 'shoutbox', name: '019-edited-shouts' },
    { owner: 'shoutbox', name: '020-guests' },
    { owner: 'shoutbox', name: '021-presence' },
    { owner: 'shoutbox', name: '022-direct-messages' },
    { owner: 'shoutbox', name: '024-pictures' },
    { owner: 'shoutbox', name: '025-upload-days' },
    { owner: 'shoutbox', name: '026-incoming-hooks' }
  ])
  await first.close()
  const second = await build(t, { db })
  t.same(await ledger(second), before)
  const list = await second.inject({ url: '/api/shoutbox/list' })
  t.same([list.statusCode, list.json()], [200, { result: 'ok', shouts: [] }], 'a restart after setup starts the addon at once')
})

t.test('a stranger who reaches a fresh install cannot finish its setup without the setup token', async t => {
  const app = await build(t)
  const { setupToken: _, ...account } = ADMIN
  for (const [label, payload] of [['no token', account], ['a wrong token', { ...account, setupToken: 'guessed-0123456789abcdef' }], ['an empty token', { ...account, setupToken: '' }]] as const) {
    const response = await app.inject({ method: 'POST', url: '/api/setup/finish', payload })
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'INVALID_SETUP_TOKEN' }], label)
    t.same(response.cookies, [], `${label}: no session`)
  }
  t.same((await app.inject({ url: '/api/setup/status' })).json(), { result: 'ok', setupDone: false }, 'setup is still open')
  t.equal(Number((await app.db('users').count<Array<{ count: number }>>({ count: '*' }))[0]?.count), 0, 'no account was made')
  t.equal((await app.inject({ method: 'POST', url: '/api/setup/finish', payload: ADMIN })).statusCode, 200, 'the holder of the token finishes it')
})

t.test('without SETUP_TOKEN, every process of one database holds the same random token, forgotten once setup is done', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const first = await build(t, { db, config: { setupToken: undefined } })
  const token = await first.identity.setup.token()
  t.match(token, /^[A-Za-z0-9_-]{32}$/)
  await first.close()
  const second = await build(t, { db, config: { setupToken: undefined } })
  t.equal(await second.identity.setup.token(), token, 'a restart (or another process) holds the same one')
  const response = await second.inject({ method: 'POST', url: '/api/setup/finish', payload: { ...ADMIN, setupToken: token } })
  t.equal(response.statusCode, 200)
  t.equal(await second.identity.setup.token(), undefined)
  t.same(await second.db('settings').where({ key: 'setup-token' }).select('key'), [], 'the spent token is gone from the database')
})
