import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { account } from '../helpers/identity.js'
import { answer, as, error } from '../helpers/requests.js'

/** `activityKeepDays`: the activity log keeps entries that many days (30–3650), or forever (null, the default). */

const DAY_MS = 24 * 60 * 60 * 1000

t.test('the activity log keeps entries as long as the site says, and no longer', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const mira = await account(app, admin, 'mira')
  const url = '/api/panel/settings'
  const entry = (daysAgo: number, text: string) => ({ type: 'UPDATED_SETTINGS', username: 'admin', details: JSON.stringify({ text }), created_at: Date.now() - daysAgo * DAY_MS })
  await app.db('activity_logs').insert([entry(400, 'a year ago'), entry(40, 'last month'), entry(10, 'last week')])

  t.equal((await as(app, admin).get(url)).json().activityKeepDays, null, 'forever by default')
  t.equal(await app.activityRetention.prune(), 0, 'and nothing goes')

  for (const value of [29, 3651, 1.5, '30', -1, true]) {
    const refused = await as(app, admin).put(url, { activityKeepDays: value })
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], JSON.stringify(value))
  }
  t.same(answer(await as(app, mira).put(url, { activityKeepDays: 30 })), [403, error('NO_PERMISSION')], 'a member cannot shorten the record')
  t.equal((await as(app, admin).get(url)).json().activityKeepDays, null, 'nothing changed')

  t.equal((await as(app, admin).put(url, { activityKeepDays: 365 })).json().activityKeepDays, 365)
  t.equal(await app.activityRetention.prune(), 1)
  const kept = async () => (await app.db('activity_logs').whereRaw("details->>'text' is not null").orderBy('created_at').select('details')).map(row => row.details.text)
  t.same(await kept(), ['last month', 'last week'], 'past a year: gone')
  await as(app, admin).put(url, { activityKeepDays: 30 })
  await app.activityRetention.prune()
  t.same(await kept(), ['last week'])
  t.ok(await app.db('activity_logs').where({ type: 'UPDATED_SETTINGS' }).whereRaw("details->>'activityKeepDays' = '30'").first(), 'the change itself is logged, and kept')
  await as(app, admin).put(url, { activityKeepDays: null })
  t.equal((await as(app, admin).get(url)).json().activityKeepDays, null, 'forever again')
})
