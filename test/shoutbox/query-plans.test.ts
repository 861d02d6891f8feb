import t from 'tap'
import { shoutsRepository, type ArchiveQuery } from '../../src/shoutbox/shouts-repository.js'
import { build, setUp, type App } from '../helpers/app.js'
import { fillInBulk } from '../helpers/bulk.js'

const GENERAL = { id: 1, slug: 'general' }

/** The plan PostgreSQL chooses for one archive page (one more than the page, as the endpoint asks), run once. */
async function planOf (app: App, query: ArchiveQuery): Promise<string> {
  const { sql, bindings } = shoutsRepository(app.db).archiveQuery(query).toSQL()
  const plan = await app.db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain (analyze, costs off, timing off, summary off) ${sql}`, [...bindings])
  return plan.rows.map(r => r['QUERY PLAN']).join('\n')
}

t.test('with 1,000,000 shouts, the list, an archive page deep in the history and a search are index scans', async t => {
  const app = await build(t)
  await setUp(app)
  // Words as a board has them: a few common, most rare (a power law over 1,000 words), and
  // the shout's number, which only it holds. Three words a shout: the search index is built
  // in half the time six took, and the plans are the same.
  await fillInBulk(app.db, 'shoutbox_shouts', async trx => {
    await trx.raw(`insert into shoutbox_shouts (message, username, date)
      select n || ' w' || floor(1000 * power(((n::bigint * 7919) % 10007) / 10007.0, 3))::int
          || ' w' || floor(1000 * power(((n::bigint * 104729) % 9973) / 9973.0, 3))::int, 'admin', 1700000000000 + n
      from generate_series(1, 1000000) as n`)
  })
  const archive = (query: ArchiveQuery) => shoutsRepository(app.db).archive(query)

  t.test('maxShouts 50: the list query walks the primary key backwards: no sort, no scan of the table', async t => {
    const query = shoutsRepository(app.db).listQuery(50).toSQL()
    const plan = await app.db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain ${query.sql}`, [...query.bindings])
    const text = plan.rows.map(r => r['QUERY PLAN']).join('\n')
    t.comment(text)
    t.match(text, /^Limit/, 'a limit on top')
    t.match(text, /Index Scan Backward using shoutbox_shouts_pkey on shoutbox_shouts/, 'over a backward index scan')
    t.notMatch(text, /Sort|Seq Scan/, 'no sort, no sequential scan')
    const shouts = await shoutsRepository(app.db).list(50)
    t.equal(shouts.length, 50)
    t.match(shouts[0]!.message, /^1000000 /, 'the newest first')
  })

  t.test('a page a million shouts back walks the primary key backwards from `before`', async t => {
    const plan = await planOf(app, { room: GENERAL, before: 1000, limit: 21 })
    t.comment(plan)
    t.match(plan, /^Limit/)
    t.match(plan, /Index Scan Backward using shoutbox_shouts_pkey on shoutbox_shouts[^\n]*\n\s+Index Cond: \(id < '?1000'?(::bigint)?\)/)
    t.notMatch(plan, /Sort|Seq Scan/, 'no sort, no sequential scan')
    t.same((await archive({ room: GENERAL, before: 1000, limit: 3 })).map(s => s.id), [999, 998, 997])
  })

  t.test('a search for a rare word reads the search index, then sorts only its matches', async t => {
    const plan = await planOf(app, { room: GENERAL, q: '123456', limit: 21 })
    t.comment(plan)
    t.match(plan, /Bitmap Index Scan on shoutbox_shouts_message_search/)
    t.notMatch(plan, /Seq Scan/)
    t.same((await archive({ room: GENERAL, q: '123456', limit: 21 })).map(s => s.id), [123456])
  })

  t.test('a search deep in the history reads the search index too', async t => {
    const plan = await planOf(app, { room: GENERAL, q: 'w500 w7', before: 200000, limit: 21 })
    t.comment(plan)
    t.match(plan, /Bitmap Index Scan on shoutbox_shouts_message_search/)
    t.notMatch(plan, /Seq Scan/)
  })

  t.test('a phrase of common words that no shout holds reads one range of ids, not the board', async t => {
    // "w0" is in about one shout in five; three in a row are in none (a shout holds two words).
    const q = '"w0 w0 w0"'
    const range = shoutsRepository(app.db).archiveQuery({ room: GENERAL, before: 1000001, limit: 21, q }).where('id', '>=', 995001).toSQL()
    const plan = (await app.db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain ${range.sql}`, [...range.bindings])).rows.map(r => r['QUERY PLAN']).join('\n')
    t.comment(plan)
    t.match(plan, /Index Cond: \(\(id < '?1000001'?(::bigint)?\) AND \(id >= '?995001'?(::bigint)?\)\)|Bitmap Index Scan on shoutbox_shouts_pkey/, 'the range bounds what is read')
    t.notMatch(plan, /Seq Scan/)
    t.same(await shoutsRepository(app.db).search({ room: GENERAL, limit: 21, q }, { budgetMs: 0 }), { shouts: [], searchedTo: 995001 }, 'one range of 5,000 ids, and where it stopped')
    const answer = (await app.inject({ url: `/api/shoutbox/archive?q=${encodeURIComponent(q)}` })).json()
    t.same(answer.shouts, [], 'over HTTP: no shout, and a next page when the time ran out first')
  })

  t.test('a rare word is found across the million shouts in one search', async t => {
    // The ranges grow fourfold while cheap: one search reaches it. Given time enough (a busy
    // machine may take longer than the 80 ms budget; npm run bench measures that).
    t.same((await shoutsRepository(app.db).search({ room: GENERAL, limit: 21, q: '123456' }, { budgetMs: 10_000 })).shouts.map(s => s.id), [123456])
    t.same((await shoutsRepository(app.db).search({ room: GENERAL, limit: 21, q: '17' }, { budgetMs: 10_000 })), { shouts: [{ id: 17, message: '17 w92 w141', username: 'admin', date: 1700000000017, room: 'general', replyTo: null }], searchedTo: null }, 'down to the first shout')
  })

  t.test('a search for a common word walks the primary key and stops after one page', async t => {
    const plan = await planOf(app, { room: GENERAL, q: 'w0', before: 500000, limit: 21 })
    t.comment(plan)
    t.match(plan, /Index Scan Backward using shoutbox_shouts_pkey/)
    t.notMatch(plan, /Seq Scan/)
    t.equal((await archive({ room: GENERAL, q: 'w0', before: 500000, limit: 21 })).length, 21)
  })
})
