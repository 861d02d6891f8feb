import type { Knex } from 'knex'

/**
 * Fills `table` by `fill` with its secondary indexes dropped, then builds them again from
 * their own definitions, in one transaction. Building an index over a million rows at once
 * takes a fraction of keeping it up to date row by row (the search index most of all), and
 * the indexes are the ones the migrations made, whatever they are.
 */
export async function fillInBulk (db: Knex, table: string, fill: (trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
  await db.transaction(async trx => {
    await trx.raw('set local statement_timeout = 0')
    const { rows } = await trx.raw<{ rows: Array<{ name: string, definition: string }> }>(`
      select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
        from pg_index i join pg_class c on c.oid = i.indexrelid
       where i.indrelid = ?::regclass and not i.indisprimary and not i.indisunique
         and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`, [table])
    for (const { name } of rows) await trx.raw('drop index ??', [name])
    await fill(trx)
    for (const { definition } of rows) await trx.raw(definition)
  })
  await db.raw('analyze ??', [table])
}
