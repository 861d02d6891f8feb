import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'

t.test('several host processes starting together on a fresh PostgreSQL schema', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  for (let round = 1; round <= 5; round++) {
    const db = await testDatabase()
    t.teardown(() => db.drop())
    // Each app creates the schema, then runs the host's migrations…
    const apps = await Promise.all(Array.from({ length: 6 }, async () => await build(t, { db })))
    const status = await Promise.all(apps.map(async app => (await app.inject({ method: 'GET', url: '/api/setup/status' })).json()))
    t.same(status, apps.map(() => ({ result: 'ok', setupDone: false })), `round ${round}: all six started`)
    // …and, once setup is done on one, each starts its addons on its next request, running their migrations.
    await setUp(apps[0]!)
    const lists = await Promise.all(apps.slice(1).map(async app => (await app.inject({ method: 'GET', url: '/api/shoutbox/list' })).json()))
    t.same(lists, apps.slice(1).map(() => ({ result: 'ok', shouts: [] })), `round ${round}: the other five started their addons`)
    // Closed before the next round, so five rounds of six processes never hold more connections than one round does.
    await Promise.all(apps.map(app => app.close()))
  }
})
