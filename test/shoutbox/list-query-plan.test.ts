import t from 'tap'
import { shoutsRepository } from '../../src/shoutbox/shouts-repository.js'
import { build, setUp } from '../helpers/app.js'

t.test('with 1,000,000 shouts and maxShouts 50, the list query walks the primary key backwards: no sort, no scan of the table', async t => {
  const app = await build(t)
  await setUp(app)
  const db = app.db
  await db.transaction(async trx => {
    // The search and date indexes are kept up to date row by row: more than the statement timeout on a busy machine.
    await trx.raw('set local statement_timeout = 0')
    await trx.raw(`insert into shoutbox_shouts (message, username, date)
      select 'shout ' || n, 'admin', 1700000000000 + n from generate_series(1, 1000000) as n`)
  })
  await db.raw('analyze shoutbox_shouts')
  const query = shoutsRepository(db).listQuery(50).toSQL()
  const plan = await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain ${query.sql}`, [...query.bindings])
  const text = plan.rows.map(r => r['QUERY PLAN']).join('\n')
  t.comment(text)
  t.match(text, /^Limit/, 'a limit on top')
  t.match(text, /Index Scan Backward using shoutbox_shouts_pkey on shoutbox_shouts/, 'over a backward index scan')
  t.notMatch(text, /Sort|Seq Scan/, 'no sort, no sequential scan')
  const shouts = await shoutsRepository(db).list(50)
  t.equal(shouts.length, 50)
  t.equal(shouts[0]!.message, 'shout 1000000')
})
