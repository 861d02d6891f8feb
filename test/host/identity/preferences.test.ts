import t from 'tap'
import { answer, as, error } from '../../helpers/requests.js'
import { build, setUp } from '../../helpers/app.js'
import { account } from '../../helpers/identity.js'

/** A member's preferences (`/api/users/me/preferences`): sound, desktop notifications, theme. */

const DEFAULTS = { sound: false, desktopNotifications: false, theme: 'system', locale: null, emailMentions: 'off' }
const ok = (preferences: Record<string, unknown>) => [200, { result: 'ok', preferences }]

t.test('preferences', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const mira = await account(app, admin, 'mira')
  const bora = await account(app, admin, 'bora')
  const url = '/api/users/me/preferences'

  t.test('all off and the system\'s theme until the member changes one', async t => {
    t.same(answer(await as(app, mira).get(url)), ok(DEFAULTS))
  })

  t.test('a change keeps the fields not sent, and lasts', async t => {
    t.same(answer(await as(app, mira).put(url, { theme: 'dark' })), ok({ ...DEFAULTS, theme: 'dark' }))
    t.same(answer(await as(app, mira).put(url, { sound: true, desktopNotifications: true })), ok({ ...DEFAULTS, sound: true, desktopNotifications: true, theme: 'dark' }))
    t.same(answer(await as(app, mira).put(url, { sound: false })), ok({ ...DEFAULTS, sound: false, desktopNotifications: true, theme: 'dark' }))
    t.same(answer(await as(app, mira).get(url)), ok({ ...DEFAULTS, sound: false, desktopNotifications: true, theme: 'dark' }))
    t.same(answer(await as(app, bora).get(url)), ok(DEFAULTS), 'each member has their own')
  })

  t.test('a bad body is refused in the envelope and changes nothing', async t => {
    const before = (await as(app, mira).get(url)).json()
    for (const body of [{}, { theme: 'sepia' }, { theme: 'DARK' }, { sound: 'yes' }, { sound: 1 }, { desktopNotifications: null }, { sound: true, admin: true }, { userId: 1, theme: 'light' }]) {
      const refused = await as(app, mira).put(url, body)
      t.same([refused.statusCode, refused.json().result, refused.json().error], [400, 'error', 'BAD_REQUEST'], JSON.stringify(body))
    }
    const broken = await app.inject({ method: 'PUT', url, headers: { cookie: mira, 'content-type': 'application/json' }, payload: '{"theme":' })
    t.same([broken.statusCode, broken.json().error], [400, 'BAD_REQUEST'], 'JSON cut short')
    t.same((await as(app, mira).get(url)).json(), before)
  })

  t.test('attack: a visitor can neither read nor write them, and another site cannot write them with the member\'s cookie', async t => {
    t.same(answer(await as(app, undefined).get(url)), [401, error('NOT_LOGGED_IN')])
    t.same(answer(await as(app, undefined).put(url, { theme: 'light' })), [401, error('NOT_LOGGED_IN')])
    const forged = await app.inject({ method: 'PUT', url, headers: { cookie: bora, origin: 'https://evil.example' }, payload: { sound: true } })
    t.same(answer(forged), [403, error('INVALID_ORIGIN')])
    t.same(answer(await as(app, bora).get(url)), ok(DEFAULTS), 'bora\'s are untouched')
  })

  t.test('attack: a burst of 300 changes leaves one row holding the last', async t => {
    const themes = ['light', 'dark', 'system'] as const
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => as(app, bora).put(url, { theme: themes[i % 3] })))
    t.same(new Set(answers.map(response => response.statusCode)), new Set([200]))
    const { id } = await app.db('users').where({ username: 'bora' }).first('id')
    t.equal((await app.db('user_preferences').where({ user_id: id })).length, 1)
    t.same(answer(await as(app, bora).put(url, { theme: 'light' })), ok({ ...DEFAULTS, theme: 'light' }))
  })

  t.test('they leave with the account', async t => {
    const users = (await as(app, admin).get('/api/panel/users')).json().users as Array<{ id: number, username: string }>
    const miraId = users.find(user => user.username === 'mira')!.id
    t.equal((await as(app, admin).delete(`/api/panel/users/${miraId}`)).statusCode, 200)
    t.same(await app.db('user_preferences').where({ user_id: miraId }), [])
  })
})
