import t from 'tap'
import { build, setUp, userWith } from '../helpers/app.js'
import { DEFAULT_REACTIONS, MODERATION_DEFAULTS } from '../helpers/shouts.js'
import type { Tap } from '../helpers/types.js'

/**
 * The members' posting, the history and the conversation settings, at their defaults;
 * members.test.ts, settings-history.test.ts and conversation.test.ts change them.
 */
const OTHER_DEFAULTS = { minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300, maxPinned: 3, keepDays: null, reactions: DEFAULT_REACTIONS, ...MODERATION_DEFAULTS }

/** A board with the manifest's default settings, and its admin. */
async function board (t: Tap) {
  const app = await build(t)
  const admin = await setUp(app)
  const get = (cookie = admin) => app.inject({ url: '/panel/api/shoutbox/config', headers: { cookie } })
  const put = (payload: Record<string, unknown>, cookie = admin) => app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie }, payload })
  return { app, admin, get, put }
}

t.test('GET/PUT /api/panel/shoutbox/config', async t => {
  // The subtests that share this board set what they rely on, or change nothing; the two
  // that need the defaults stage a board of their own.
  const { app, admin, get, put } = await board(t)

  t.test('defaults from the manifest: no maxShouts, 500 code points, 3 pins, kept forever, six reactions', async t => {
    const { get } = await board(t)
    const response = await get()
    t.same([response.statusCode, response.json()], [200, { result: 'ok', maxShouts: null, maxMessageLength: 500, ...OTHER_DEFAULTS }])
  })

  t.test('the keys sent are changed, the answer is the whole config', async t => {
    const { get, put } = await board(t)
    t.same((await put({ maxShouts: 10 })).json(), { result: 'ok', maxShouts: 10, maxMessageLength: 500, ...OTHER_DEFAULTS })
    t.same((await put({ maxMessageLength: 20 })).json(), { result: 'ok', maxShouts: 10, maxMessageLength: 20, ...OTHER_DEFAULTS })
    t.same((await put({ maxShouts: null, maxMessageLength: 10000 })).json(), { result: 'ok', maxShouts: null, maxMessageLength: 10000, ...OTHER_DEFAULTS })
    t.same((await get()).json(), { result: 'ok', maxShouts: null, maxMessageLength: 10000, ...OTHER_DEFAULTS })
  })

  t.test('maxMessageLength applies to the next publish', async t => {
    await put({ maxMessageLength: 5 })
    const long = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message: 'sixsix' } })
    t.same(long.json(), { result: 'error', error: 'MESSAGE_TOO_LONG', maxMessageLength: 5 })
    const fits = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message: 'five5' } })
    t.same(fits.json(), { result: 'ok' })
  })

  t.test('invalid values → 400 BAD_REQUEST, nothing changed', async t => {
    const before = (await get()).json()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ maxShouts: -1 }, 'body/maxShouts must be >= 0'],
      [{ maxShouts: 1.5 }, 'body/maxShouts must be integer'],
      [{ maxShouts: '10' }, 'body/maxShouts must be integer'],
      [{ maxMessageLength: 0 }, 'body/maxMessageLength must be >= 1'],
      [{ maxMessageLength: 10001 }, 'body/maxMessageLength must be <= 10000'],
      [{ maxMessageLength: null }, 'body/maxMessageLength must be integer'],
      [{}, 'body must NOT have fewer than 1 properties']
    ]
    for (const [payload, what] of cases) {
      const response = await put(payload)
      t.equal(response.statusCode, 400, JSON.stringify(payload))
      t.equal(response.json().error, 'BAD_REQUEST')
      t.match(response.json().bodyValidationError, what.startsWith('body/maxShouts') ? /^body\/maxShouts must be/ : what, JSON.stringify(payload))
    }
    t.same((await get()).json(), before)
  })

  t.test('changes are logged', async t => {
    await put({ maxShouts: 10 })
    await put({ maxShouts: null })
    const feed = await app.inject({ url: '/api/panel/logs/activity', headers: { cookie: admin } })
    t.equal(feed.json().logs[1].text, 'admin changed the shoutbox settings')
  })

  t.test('a misspelt key is refused, naming it; nothing changed, nothing logged', async t => {
    const before = (await get()).json()
    const entries = await app.db('activity_logs').count<Array<{ count: string }>>({ count: '*' })
    // A newcomer's typo: maxShout for maxShouts.
    const typo = await put({ maxShout: 5 })
    t.same([typo.statusCode, typo.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'body must NOT have additional properties: maxShout' }])
    const mixed = await put({ maxShouts: 5, maxShout: 5 })
    t.equal(mixed.statusCode, 400, 'with a real key beside it too')
    // A key an attacker made long is not echoed.
    const long = await put({ ['x'.repeat(5000)]: 1 })
    t.same([long.statusCode, long.json().bodyValidationError], [400, 'body must NOT have additional properties'])
    t.same((await get()).json(), before)
    t.same(await app.db('activity_logs').count<Array<{ count: string }>>({ count: '*' }), entries)
  })

  t.test('a PUT that changes nothing is answered with the settings and leaves no entry', async t => {
    const current = (await get()).json()
    const entries = async () => Number((await app.db('activity_logs').where({ type: 'UPDATED_SHOUTBOX_SETTINGS' }).count<Array<{ count: string }>>({ count: '*' }))[0]!.count)
    const before = await entries()
    const same = await put({ maxShouts: current.maxShouts, maxMessageLength: current.maxMessageLength })
    t.same([same.statusCode, same.json()], [200, current])
    t.equal(await entries(), before, 'nothing logged')
    const changed = await put({ maxShouts: current.maxShouts, maxMessageLength: current.maxMessageLength + 1 })
    t.equal(changed.json().maxMessageLength, current.maxMessageLength + 1)
    t.equal(await entries(), before + 1, 'a real change is')
    const feed = await app.inject({ url: '/api/panel/logs/activity', headers: { cookie: admin } })
    t.same(feed.json().logs[0].details, { maxMessageLength: current.maxMessageLength + 1 }, 'naming only what changed')
    await put({ maxMessageLength: current.maxMessageLength })
  })

  t.test('needs MANAGE_SHOUTBOX', async t => {
    const helper = await userWith(app, admin, 'helper', ['panel.access'])
    t.same((await get(helper)).json(), { result: 'error', error: 'NO_PERMISSION' })
    t.same((await put({ maxShouts: 1 }, helper)).json(), { result: 'error', error: 'NO_PERMISSION' })
  })
})
