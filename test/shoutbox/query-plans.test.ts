import t from 'tap'
import { shoutsRepository, type ArchiveQuery } from '../../src/shoutbox/shouts-repository.js'
import { build, setUp, type App } from '../helpers/app.js'
import { fillInBulk } from '../helpers/bulk.js'

// A million rows made in SQL and their search index: 40 s on PostgreSQL, two to three minutes on the embedded database beside other tests.
t.setTimeout(600_000)

const GENERAL = { id: 1, slug: 'general' }

/** The plan PostgreSQL chooses for one archive page (one more than the page, as the endpoint asks), run once. */
async function planOf (app: App, query: ArchiveQuery): Promise<string> {
  const { sql, bindings } = shoutsRepository(app.db).archiveQuery(query).toSQL()
  const plan = await app.db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain (analyze, costs off, timing off, summary off) ${sql}`, [...bindings])
  return plan.rows.map(r => r['QUERY PLAN']).join('\n')
}

t.test('with 1,000,000 shouts, the list and an archive page deep in the history are index scans; a search reads a bounded number of rows, whatever its words', async t => {
  const app = await build(t)
  await setUp(app)
  // Words as a board has them: a few common, most rare (a power law over 1,000 words), the
  // shout's number, which only it holds, and "the", which every one holds. Four words a
  // shout: the search index is built in half the time six took, and the plans are the same.
  await fillInBulk(app.db, 'shoutbox_shouts', async trx => {
    await trx.raw(`insert into shoutbox_shouts (message, username, date)
      select n || ' w' || floor(1000 * power(((n::bigint * 7919) % 10007) / 10007.0, 3))::int
          || ' w' || floor(1000 * power(((n::bigint * 104729) % 9973) / 9973.0, 3))::int || ' the', 'admin', 1700000000000 + n
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

  const repository = shoutsRepository(app.db)
  /** EXPLAIN ANALYZE of one range of a search (ids `bottom` up to `top`), as a search reads it. */
  const rangePlan = async (q: string, top: number, bottom: number): Promise<string> => {
    const search = await repository.parseSearch(q)
    if (search.kind !== 'query') throw new Error(`${q}: no query`)
    const { sql, bindings } = repository.archiveQuery({ room: GENERAL, before: top, limit: 21, tsquery: search.tsquery }).where('id', '>=', bottom).toSQL()
    return (await app.db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain (analyze, costs off, timing off, summary off) ${sql}`, [...bindings])).rows.map(r => r['QUERY PLAN']).join('\n')
  }
  /** EXPLAIN ANALYZE of the read of the search index for `leads`, as a search reads it. */
  const candidatesPlan = async (leads: string, most: number): Promise<string> => repository.byIndexOnly(async trx => {
    const { sql, bindings } = repository.candidatesQuery(trx, GENERAL, 1000001, leads, most).toSQL()
    return (await trx.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain (analyze, costs off, timing off, summary off) ${sql}`, [...bindings])).rows.map(r => r['QUERY PLAN']).join('\n')
  })
  /** The rows the plan's node `node` produced. */
  const rowsOf = (plan: string, node: RegExp): number => Number(new RegExp(`${node.source}[^\\n]*actual rows=(\\d+)`).exec(plan)?.[1] ?? NaN)
  const THE_40 = Array.from({ length: 40 }, () => 'the').join(' ')

  t.test('the attacker\'s "the" forty times and "-the" is no search: nothing is read, over HTTP too', async t => {
    t.same(await repository.parseSearch(`${THE_40} -the`), { kind: 'none' })
    const answer = await app.inject({ url: `/api/shoutbox/archive?q=${encodeURIComponent(`${THE_40} -the`)}` })
    t.same([answer.statusCode, answer.json()], [200, { result: 'ok', shouts: [], next: null }])
  })

  t.test('"the" forty times is one word every shout holds: one range of ids by an index on id, never the search index', async t => {
    const search = await repository.parseSearch(THE_40)
    t.same(search, { kind: 'query', tsquery: "'the'", words: ['the'], size: 1, required: [['the']] }, 'said once')
    t.equal(await repository.rareWords(GENERAL, 1000001, [['the']], 2000), undefined, 'the newest shouts say it is common: the index is not read')
    const plan = await rangePlan(THE_40, 1000001, 995001)
    t.comment(plan)
    t.match(plan, /Index Scan Backward using shoutbox_shouts_(pkey|room_id)[^\n]*\n\s+Index Cond: \(.*id < '?1000001'?(::bigint)?\) AND \(id >= '?995001'?(::bigint)?\)\)/, 'the range bounds what is read')
    t.notMatch(plan, /message_search|Seq Scan|Sort/)
    t.equal(rowsOf(plan, /Index Scan/), 21, 'a page after 21 rows')
    const { shouts, searchedTo } = await repository.search({ room: GENERAL, limit: 21, q: THE_40 })
    t.same([shouts.length, shouts[0]!.id, searchedTo], [21, 1000000, null])
  })

  t.test('negations and common words, however many, read a range of ids at most; more than 16 words → 400', async t => {
    const q = 'the w0 -w1 "w2 the" w3 -w4 w0 w5 -"w6 w7" w8 or -w9 -w10 -w11'
    const search = await repository.parseSearch(q)
    if (search.kind !== 'query') throw new Error('a query')
    t.equal(search.required, null, 'an alternative needs no word: the index cannot narrow it')
    const plan = await rangePlan(q, 1000001, 995001)
    t.comment(plan)
    t.notMatch(plan, /message_search|Seq Scan|Sort/)
    t.ok(rowsOf(plan, /Index Scan/) + Number(/Rows Removed by Filter: (\d+)/.exec(plan)?.[1] ?? 0) <= 5000, 'at most the range\'s 5,000 rows read')
    t.same(await repository.search({ room: GENERAL, limit: 21, q: '-the' }, { budgetMs: 0 }), { shouts: [], searchedTo: 999001 }, '-the: one range of 1,000 ids, and where it stopped')
    const many = Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ')
    const answer = await app.inject({ url: `/api/shoutbox/archive?q=${encodeURIComponent(many)}` })
    t.same([answer.statusCode, answer.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'querystring/q must not hold more than 16 words' }])
  })

  t.test('a phrase of common words that no shout holds reads one range of ids, not the board', async t => {
    // "w0" is in about one shout in five; three in a row are in none (a shout holds two words).
    for (const q of ['"w0 w0 w0"', '"the the"']) {
      const plan = await rangePlan(q, 1000001, 995001)
      t.notMatch(plan, /message_search|Seq Scan/, q)
      t.equal(rowsOf(plan, /Index Scan/), 0, `${q}: none in the range`)
      t.same(await repository.search({ room: GENERAL, limit: 21, q }, { budgetMs: 0 }), { shouts: [], searchedTo: 999001 }, `${q}: one range of 1,000 ids, and where it stopped`)
    }
    const answer = (await app.inject({ url: `/api/shoutbox/archive?q=${encodeURIComponent('"w0 w0 w0"')}` })).json()
    t.same(answer.shouts, [], 'over HTTP: no shout, and a next page when the time ran out first')
  })

  t.test('a rare word is read from the search index alone, for that word, and no more than the candidates\' cap of rows', async t => {
    t.equal(await repository.rareWords(GENERAL, 1000001, [['the', 'w0', '123456']], 2000), "'123456'", 'of the words every match holds, the rarest leads')
    const plan = await candidatesPlan("'123456'", 2000)
    t.comment(plan)
    t.match(plan, /^Limit[\s\S]*?->\s+Bitmap Heap Scan on shoutbox_shouts[\s\S]*Bitmap Index Scan on shoutbox_shouts_message_search/)
    t.notMatch(plan, /Seq Scan|Index Scan using|BitmapAnd|Gather|on shoutbox_shouts_(pkey|room_id)/, 'nothing else read')
    t.equal(rowsOf(plan, /Bitmap Heap Scan/), 1)
    const found = await repository.search({ room: GENERAL, limit: 21, q: 'the w0 123456' }, { budgetMs: 0 })
    t.same(found, { shouts: [], searchedTo: null }, '123456 has no w0: none, and the whole board searched')
    t.same((await repository.search({ room: GENERAL, limit: 21, q: '123456 the' }, { budgetMs: 0 })).shouts.map(s => s.id), [123456], 'in one query, whatever the budget')
    t.same((await repository.search({ room: GENERAL, limit: 21, q: '17' }, { budgetMs: 0 })), { shouts: [{ id: 17, message: '17 w92 w141 the', username: 'admin', date: 1700000000017, room: 'general', replyTo: null }], searchedTo: null }, 'down to the first shout')
    t.same((await repository.search({ room: GENERAL, limit: 21, q: '17 or 123456' }, { budgetMs: 0 })).shouts.map(s => s.id), [123456, 17], 'one rare word for each alternative')
  })

  t.test('a word commoner than the newest shouts said: the index gives up after the cap of rows, and the ranges are read', async t => {
    const plan = await candidatesPlan("'the'", 2000)
    t.comment(plan)
    t.equal(rowsOf(plan, /Bitmap Heap Scan/), 2001, 'the table read stops one past the cap')
    t.equal(await repository.candidates(GENERAL, 1000001, "'the'", 2000), undefined)
  })

  t.test('a search for a common word walks an index on id and stops after one page', async t => {
    const plan = await rangePlan('w0', 500000, 495000)
    t.comment(plan)
    t.match(plan, /Index Scan Backward using shoutbox_shouts_(pkey|room_id)/)
    t.notMatch(plan, /Seq Scan|message_search/)
    t.equal((await repository.search({ room: GENERAL, before: 500000, limit: 21, q: 'w0' }, { budgetMs: 0 })).shouts.length, 21)
  })
})
