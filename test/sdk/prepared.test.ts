/**
 * `prepared` (src/sdk/prepared.ts): on PostgreSQL a statement so marked is parsed and
 * planned once per connection, under a name made from its text; the embedded database
 * runs it as any other. Either way it answers what the statement answers.
 */
import t from 'tap'
import { openDatabase } from '../../src/host/database/connect.js'
import { prepared } from '../../src/sdk/prepared.js'
import { build, setUp } from '../helpers/app.js'
import { DB_KIND, TEST_DATABASE_URL, testDatabase } from '../helpers/database.js'
import { as } from '../helpers/requests.js'

t.test('a prepared statement answers as the statement does, and PostgreSQL keeps it by its text', async t => {
  const database = await testDatabase()
  t.teardown(() => database.drop())
  const { knex: db } = await database.open()
  t.teardown(() => db.destroy())

  // One transaction: one connection, whose prepared statements pg_prepared_statements shows.
  await db.transaction(async trx => {
    const kept = async (): Promise<Array<{ name: string, statement: string }>> =>
      (await trx.raw<{ rows: Array<{ name: string, statement: string }> }>("select name, statement from pg_prepared_statements where name like 'prepared\\_%' order by statement")).rows

    const plusOne = (n: number | string) => prepared(trx.raw<{ rows: Array<{ n: number }> }>('select ?::int + 1 as n', [n]))
    t.same((await plusOne(1)).rows, [{ n: 2 }])
    t.same((await plusOne(41)).rows, [{ n: 42 }], 'the second run, with other values')
    t.same((await prepared(trx.raw<{ rows: Array<{ n: number }> }>('select ?::int * 2 as n', [21]))).rows, [{ n: 42 }], 'another text')

    const statements = await kept()
    if (DB_KIND === 'postgres') {
      t.same(statements.map(row => row.statement), ['select $1::int * 2 as n', 'select $1::int + 1 as n'], 'one statement a text, whatever the values')
      t.match(statements[0]!.name, /^prepared_[0-9a-f]{32}$/)
      t.not(statements[0]!.name, statements[1]!.name)
    } else {
      t.same(statements, [], 'the embedded database ignores the name')
    }
  })

  // Refused values leave the statement as it was: the next run on that connection works.
  await db.transaction(async trx => {
    const plusOne = (n: number | string) => prepared(trx.raw<{ rows: Array<{ n: number }> }>('select ?::int + 1 as n', [n]))
    t.same((await plusOne(1)).rows, [{ n: 2 }])
    await trx.raw('savepoint refused')
    await t.rejects(plusOne('not a number'), { code: '22P02' }, 'PostgreSQL refuses the value')
    await trx.raw('rollback to savepoint refused')
    t.same((await plusOne(2)).rows, [{ n: 3 }], 'and runs the statement again afterwards')
  })
})

t.test('past 64 texts the rest run unnamed: a caller whose text carries a value does not fill every connection', { skip: DB_KIND !== 'postgres' && 'names are for PostgreSQL' }, async t => {
  const database = await testDatabase()
  t.teardown(() => database.drop())
  const { knex: db } = await database.open()
  t.teardown(() => db.destroy())
  await db.transaction(async trx => {
    for (let n = 0; n < 100; n++) {
      const { rows } = await prepared(trx.raw<{ rows: Array<{ n: number }> }>(`select ${n} + ?::int as n`, [1]))
      t.equal(rows[0]!.n, n + 1)
    }
    const { rows: [kept] } = await trx.raw<{ rows: Array<{ count: string }> }>("select count(*) from pg_prepared_statements where name like 'prepared\\_%'")
    t.equal(Number(kept!.count), 64, 'the first 64 named, kept on the connection')
  })
})

t.test('the host prepares its publish and a reaction\'s statements, and PostgreSQL plans them once', { skip: DB_KIND !== 'postgres' && 'names are for PostgreSQL' }, async t => {
  // A pool of one connection: pg_prepared_statements shows what the app's statements prepared.
  const database = await testDatabase()
  t.teardown(() => database.drop())
  const app = await build(t, { db: { ...database, open: () => openDatabase({ url: TEST_DATABASE_URL, schema: database.schema, poolSize: 1 }) } })
  const admin = await setUp(app)
  const ids: number[] = []
  for (let n = 1; n <= 12; n++) {
    // Through the panel (logged in the activity feed) and as a member posts, in turn.
    const posted = await as(app, admin).post(n % 2 === 0 ? '/panel/api/shoutbox' : '/api/shoutbox/rooms/general/shouts', { message: `shout ${n}` })
    t.equal(posted.statusCode, 200, posted.body)
    if (n % 2 === 1) ids.push((posted.json() as { shout: { id: number } }).shout.id)
  }
  for (const id of ids) {
    t.equal((await as(app, admin).put(`/api/shoutbox/shouts/${id}/reactions/${encodeURIComponent('👍')}`)).statusCode, 200)
    t.equal((await as(app, admin).delete(`/api/shoutbox/shouts/${id}/reactions/${encodeURIComponent('👍')}`)).statusCode, 200)
  }
  const { rows } = await app.db.raw<{ rows: Array<{ statement: string, generic_plans: string, custom_plans: string }> }>(
    "select statement, generic_plans, custom_plans from pg_prepared_statements where name like 'prepared\\_%'")
  const of = (pattern: RegExp) => rows.filter(row => pattern.test(row.statement))
  t.equal(of(/insert into "shoutbox_shouts"/).length, 1, 'one publish statement, logged or not')
  t.equal(of(/select \(select room_id from "shoutbox_shouts"/).length, 1, 'one for what a reaction must know first')
  t.equal(of(/insert into "shoutbox_reactions"/).length, 1, 'one for the change')
  // The claim: with the answer's counts, whatever the site's set; without them (a pending
  // announcement, only when reactions came within a second) a second text.
  const claims = of(/update "shoutbox_shouts" as shout set/).length
  t.ok(claims >= 1 && claims <= 2, `the claim: ${claims} texts`)
  t.equal(rows.length, 3 + claims, 'and no others')
  const [publish] = of(/insert into "shoutbox_shouts"/)
  t.equal(Number(publish!.generic_plans) + Number(publish!.custom_plans), 12, 'the publish statement ran 12 times')
  t.ok(Number(publish!.generic_plans) > 0, `and was planned once for most of them (${publish!.generic_plans} runs on the kept plan, ${publish!.custom_plans} planned)`)
})

t.test('a connection that lost a prepared statement is replaced: the next run prepares it anew', { skip: DB_KIND !== 'postgres' && 'names are for PostgreSQL' }, async t => {
  const database = await testDatabase()
  t.teardown(() => database.drop())
  // One connection: what happens to it happens to every statement.
  const { knex: db } = await openDatabase({ url: TEST_DATABASE_URL, schema: database.schema, poolSize: 1 })
  t.teardown(() => db.destroy())
  const plusOne = (n: number) => prepared(db.raw<{ rows: Array<{ n: number, pid: number }> }>('select ?::int + 1 as n, pg_backend_pid() as pid', [n]))
  const first = (await plusOne(1)).rows[0]!
  t.equal(first.n, 2)
  // PostgreSQL drops it behind the driver's back (as after a bind that failed half way).
  const { rows: [kept] } = await db.raw<{ rows: Array<{ name: string }> }>("select name from pg_prepared_statements where statement like 'select $1::int + 1 as n, pg_backend_pid()%'")
  await db.raw(`deallocate "${kept!.name}"`)
  await t.rejects(plusOne(2), { code: '26000' }, 'the connection that lost it fails the statement once')
  const again = (await plusOne(3)).rows[0]!
  t.equal(again.n, 4, 'the next run answers')
  t.not(again.pid, first.pid, 'on a new connection')
  t.equal((await plusOne(4)).rows[0]!.n, 5, 'and so on')
})
