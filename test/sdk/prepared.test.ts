/**
 * `prepared` (src/sdk/prepared.ts): on PostgreSQL a statement so marked is parsed and
 * planned once per connection, under a name made from its text; the embedded database
 * runs it as any other. Either way it answers what the statement answers.
 */
import t from 'tap'
import { prepared } from '../../src/sdk/prepared.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'

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
    t.ok(Number(kept!.count) <= 64, `${kept!.count} statements kept on the connection`)
    t.ok(Number(kept!.count) >= 50, 'the first ones named')
  })
})
