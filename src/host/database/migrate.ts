import type { Knex } from 'knex'
import { MIGRATION_LOCK, SCHEMA_MIGRATIONS_TABLE } from './tables.js'

export interface NamedMigration {
  readonly name: string
  up (db: Knex): Promise<void>
}

/**
 * Runs the migrations of one owner ("host" or an addon id) that have not run yet, in
 * name order, each in its own transaction. An advisory lock lets several host processes
 * start at once: the first runs them, the others find them done.
 */
export async function migrate (db: Knex, owner: string, migrations: readonly NamedMigration[]): Promise<string[]> {
  await ensureLedger(db)
  const applied: string[] = []
  const sorted = [...migrations].sort((a, b) => a.name.localeCompare(b.name))
  for (const migration of sorted) {
    const ran = await db.transaction(async trx => {
      await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK])
      const done = await trx(SCHEMA_MIGRATIONS_TABLE).where({ owner, name: migration.name }).first()
      if (done !== undefined) return false
      await migration.up(trx)
      await trx(SCHEMA_MIGRATIONS_TABLE).insert({ owner, name: migration.name, applied_at: Date.now() })
      return true
    })
    if (ran) applied.push(migration.name)
  }
  return applied
}

async function ensureLedger (db: Knex): Promise<void> {
  await db.transaction(async trx => {
    await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK])
    await trx.raw(`create table if not exists ${SCHEMA_MIGRATIONS_TABLE} (
      owner text not null,
      name text not null,
      applied_at bigint not null,
      primary key (owner, name)
    )`)
  })
}
