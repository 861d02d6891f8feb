import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { DEFAULT_REACTIONS, MODERATION_DEFAULTS } from '../helpers/shouts.js'

/** The members' posting settings, at their defaults (settings.test.ts and members.test.ts change them). */
const MEMBERS = { minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300 }
/** The conversation settings, at their defaults (conversation.test.ts changes them). */
const CONVERSATION = { reactions: DEFAULT_REACTIONS, ...MODERATION_DEFAULTS }

/** CONTRACT §14: the settings maxPinned (0–20, default 3) and keepDays (null or 1–3650, default null). */
t.test('maxPinned and keepDays in GET/PUT /api/panel/shoutbox/config', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const get = () => app.inject({ url: '/panel/api/shoutbox/config', headers: { cookie: admin } })
  const put = (payload: Record<string, unknown>) => app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload })

  t.test('defaults: 3 pins at most, shouts kept forever', async t => {
    const response = await get()
    t.same([response.statusCode, response.json()], [200, { result: 'ok', maxShouts: null, maxMessageLength: 500, ...MEMBERS, maxPinned: 3, keepDays: null, ...CONVERSATION }])
  })

  t.test('each is changed alone, the answer is the whole config', async t => {
    t.same((await put({ maxPinned: 0 })).json(), { result: 'ok', maxShouts: null, maxMessageLength: 500, ...MEMBERS, maxPinned: 0, keepDays: null, ...CONVERSATION })
    t.same((await put({ keepDays: 1 })).json(), { result: 'ok', maxShouts: null, maxMessageLength: 500, ...MEMBERS, maxPinned: 0, keepDays: 1, ...CONVERSATION })
    t.same((await put({ maxPinned: 20, keepDays: 3650 })).json(), { result: 'ok', maxShouts: null, maxMessageLength: 500, ...MEMBERS, maxPinned: 20, keepDays: 3650, ...CONVERSATION })
    t.same((await put({ keepDays: null })).json(), { result: 'ok', maxShouts: null, maxMessageLength: 500, ...MEMBERS, maxPinned: 20, keepDays: null, ...CONVERSATION })
    t.same((await get()).json(), { result: 'ok', maxShouts: null, maxMessageLength: 500, ...MEMBERS, maxPinned: 20, keepDays: null, ...CONVERSATION })
  })

  t.test('out of range → 400 BAD_REQUEST, nothing changed', async t => {
    const before = (await get()).json()
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ maxPinned: -1 }, /^body\/maxPinned must be >= 0$/],
      [{ maxPinned: 21 }, /^body\/maxPinned must be <= 20$/],
      [{ maxPinned: 1.5 }, /^body\/maxPinned must be integer$/],
      [{ maxPinned: null }, /^body\/maxPinned must be integer$/],
      [{ maxPinned: '3' }, /^body\/maxPinned must be integer$/],
      [{ keepDays: 0 }, /^body\/keepDays must be/],
      [{ keepDays: 3651 }, /^body\/keepDays must be/],
      [{ keepDays: 1.5 }, /^body\/keepDays must be/],
      [{ keepDays: '30' }, /^body\/keepDays must be/],
      [{ keepDays: 30, maxPinned: 99 }, /^body\/maxPinned must be <= 20$/]
    ]
    for (const [payload, what] of cases) {
      const response = await put(payload)
      t.same([response.statusCode, response.json().result, response.json().error], [400, 'error', 'BAD_REQUEST'], JSON.stringify(payload))
      t.match(response.json().bodyValidationError, what, JSON.stringify(payload))
    }
    t.same((await get()).json(), before)
  })

  t.test('a change is logged with the keys sent', async t => {
    await put({ maxPinned: 5, keepDays: 90 })
    const entry = await app.db('activity_logs').where({ type: 'UPDATED_SHOUTBOX_SETTINGS' }).orderBy('id', 'desc').first()
    t.same(entry.details, { maxPinned: 5, keepDays: 90 })
  })
})
