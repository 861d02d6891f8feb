import t from 'tap'
import { build } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'

t.test('several host processes starting together on a fresh PostgreSQL schema', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  for (let round = 0; round < 5; round++) {
    const db = await testDatabase()
    t.teardown(() => db.drop())
    // Each app creates the schema, then runs the host's and the addons' migrations.
    const apps = await Promise.all(Array.from({ length: 6 }, async () => await build(t, { db })))
    const answers = await Promise.all(apps.map(async app => (await app.inject({ method: 'GET', url: '/api/setup/status' })).json()))
    t.same(answers, apps.map(() => ({ result: 'ok', setupDone: false })), `round ${round + 1}: all six started and answer`)
  }
})
