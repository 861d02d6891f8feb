import fs from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { createReadStream } from 'node:fs'
import type { Knex } from 'knex'
import { SCHEMA_MIGRATIONS_TABLE } from './tables.js'

/**
 * A backup is a folder: `tables.jsonl` (a line per row, each row as PostgreSQL's
 * `row_to_json` writes it), `address-secret` when the data folder holds one, and
 * `shoutbox-backup.json`, written last, which says what the rest holds. The rows are
 * read in one read-only snapshot, so they are as consistent as a committed moment of the
 * board, and they load through `json_populate_recordset` into the same tables on either
 * database: a backup of the embedded database restores into PostgreSQL and back.
 */
export const BACKUP_MANIFEST = 'shoutbox-backup.json'
export const BACKUP_ROWS = 'tables.jsonl'
export const BACKUP_FORMAT = 1

export interface BackupManifest {
  readonly format: number
  readonly madeAt: string
  /** Every migration that had run, `owner/name`: a restore needs the same code. */
  readonly migrations: readonly string[]
  /** Rows per table. */
  readonly tables: Readonly<Record<string, number>>
  /** Each sequence's last value (null: never used). */
  readonly sequences: Readonly<Record<string, number | null>>
  /** Where the address secret was: copied beside the rows, in ADDRESS_SECRET (not copied), or nowhere yet. */
  readonly addressSecret: 'file' | 'environment' | 'none'
}

export class BackupError extends Error {
  override readonly name = 'BackupError'
}

/** Rows read and written at a time. */
const BATCH = 500

/** Writes the schema's rows into `folder` (made; it must not exist or be empty). */
export async function writeBackup (db: Knex, schema: string, folder: string, addressSecret: BackupManifest['addressSecret']): Promise<BackupManifest> {
  const tables: Record<string, number> = {}
  let migrations: string[] = []
  let sequences: Record<string, number | null> = {}
  const out = await fs.open(path.join(folder, BACKUP_ROWS), 'wx', 0o600)
  try {
    await db.transaction(async trx => {
      // One snapshot for every table: a shout and its room are read as of the same moment.
      await trx.raw('set transaction isolation level repeatable read, read only')
      migrations = (await trx(SCHEMA_MIGRATIONS_TABLE).select('owner', 'name').orderBy(['owner', 'name']))
        .map((row: { owner: string, name: string }) => `${row.owner}/${row.name}`)
      sequences = await readSequences(trx, schema)
      for (const table of await tablesInLoadOrder(trx, schema)) {
        tables[table] = 0
        const order = await primaryKey(trx, schema, table)
        await trx.raw(`declare backup_rows no scroll cursor for select row_to_json(t)::text as row from ??.?? t${order.length === 0 ? '' : ` order by ${order.map(() => '??').join(', ')}`}`, [schema, table, ...order])
        for (;;) {
          const { rows } = await trx.raw(`fetch ${BATCH} from backup_rows`) as { rows: Array<{ row: string }> }
          if (rows.length === 0) break
          await out.write(rows.map(({ row }) => `{"table":${JSON.stringify(table)},"row":${row}}\n`).join(''))
          tables[table] += rows.length
        }
        await trx.raw('close backup_rows')
      }
    })
    await out.sync()
  } finally {
    await out.close()
  }
  const manifest: BackupManifest = { format: BACKUP_FORMAT, madeAt: new Date().toISOString(), migrations, tables, sequences, addressSecret }
  await fs.writeFile(path.join(folder, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 })
  return manifest
}

/** The manifest of the backup in `folder`, checked. */
export async function readManifest (folder: string): Promise<BackupManifest> {
  const text = await fs.readFile(path.join(folder, BACKUP_MANIFEST), 'utf8').catch(() => {
    throw new BackupError(`${folder} holds no ${BACKUP_MANIFEST}: not a backup, or one that did not finish`)
  })
  const manifest = JSON.parse(text) as BackupManifest
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`${folder} is a backup of format ${String(manifest.format)}; this version reads format ${BACKUP_FORMAT}`)
  return manifest
}

/** The migrations that have run on `db`, `owner/name`. */
export async function migrationsOf (db: Knex): Promise<string[]> {
  return (await db(SCHEMA_MIGRATIONS_TABLE).select('owner', 'name').orderBy(['owner', 'name']))
    .map((row: { owner: string, name: string }) => `${row.owner}/${row.name}`)
}

/**
 * Replaces every row of the schema (migrated by the same code that made the backup) with
 * the backup's, in one transaction: a restore that fails leaves the tables as they were.
 */
export async function loadBackup (db: Knex, schema: string, folder: string): Promise<BackupManifest> {
  const manifest = await readManifest(folder)
  const here = await migrationsOf(db)
  const missing = manifest.migrations.filter(name => !here.includes(name))
  // Only an addon that never started where the backup was made (no migration of its
  // own there) may have more here: its tables are empty in the backup.
  const owners = new Set(manifest.migrations.map(name => name.slice(0, name.indexOf('/'))))
  const extra = here.filter(name => !manifest.migrations.includes(name) && owners.has(name.slice(0, name.indexOf('/'))))
  if (missing.length > 0 || extra.length > 0) {
    throw new BackupError(`the backup was made by another version of Shoutbox (${missing.length > 0 ? `its migrations ${missing.join(', ')} are unknown here` : `it lacks the migrations ${extra.join(', ')}`}): restore it with the version that made it, then upgrade`)
  }
  await db.transaction(async trx => {
    const order = await tablesInLoadOrder(trx, schema)
    const unknown = Object.keys(manifest.tables).filter(table => !order.includes(table))
    if (unknown.length > 0) throw new BackupError(`the backup holds tables this database lacks: ${unknown.join(', ')}`)
    await trx.raw(`truncate table ${order.map(() => '??.??').join(', ')} restart identity cascade`, order.flatMap(table => [schema, table]))
    // The rows come table by table in load order (they were written so).
    let table: string | undefined
    let batch: unknown[] = []
    const flush = async (): Promise<void> => {
      if (table === undefined || batch.length === 0) return
      const columns = await insertableColumns(trx, schema, table)
      const list = columns.map(() => '??').join(', ')
      await trx.raw(`insert into ??.?? (${list}) overriding system value select ${list} from json_populate_recordset(null::??.??, ?::json)`,
        [schema, table, ...columns, ...columns, schema, table, JSON.stringify(batch)])
      batch = []
    }
    const lines = createInterface({ input: createReadStream(path.join(folder, BACKUP_ROWS), 'utf8'), crlfDelay: Infinity })
    const counted: Record<string, number> = {}
    for await (const line of lines) {
      if (line === '') continue
      const entry = JSON.parse(line) as { table: string, row: unknown }
      if (entry.table !== table || batch.length >= BATCH) await flush()
      table = entry.table
      batch.push(entry.row)
      counted[table] = (counted[table] ?? 0) + 1
    }
    await flush()
    for (const [name, rows] of Object.entries(manifest.tables)) {
      if ((counted[name] ?? 0) !== rows) throw new BackupError(`${BACKUP_ROWS} holds ${counted[name] ?? 0} rows of ${name}; the manifest says ${rows}: the backup is damaged`)
    }
    for (const [sequence, value] of Object.entries(manifest.sequences)) {
      if (value !== null) await trx.raw('select setval(?::regclass, ?, true)', [`"${schema}"."${sequence}"`, value])
    }
  })
  return manifest
}

/** The schema's tables (the migration ledger aside), each after those its foreign keys point at. */
async function tablesInLoadOrder (db: Knex, schema: string): Promise<string[]> {
  const { rows: tables } = await db.raw(`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ? and c.relkind in ('r', 'p') and c.relname <> ? order by c.relname`, [schema, SCHEMA_MIGRATIONS_TABLE]) as { rows: Array<{ name: string }> }
  const { rows: keys } = await db.raw(`select child.relname as child, parent.relname as parent from pg_constraint k
    join pg_class child on child.oid = k.conrelid join pg_class parent on parent.oid = k.confrelid
    join pg_namespace n on n.oid = k.connamespace where k.contype = 'f' and n.nspname = ?`, [schema]) as { rows: Array<{ child: string, parent: string }> }
  const ordered: string[] = []
  const visiting = new Set<string>()
  const visit = (table: string): void => {
    if (ordered.includes(table) || visiting.has(table)) return
    visiting.add(table)
    for (const key of keys) if (key.child === table && key.parent !== table) visit(key.parent)
    ordered.push(table)
  }
  for (const { name } of tables) visit(name)
  return ordered
}

async function primaryKey (db: Knex, schema: string, table: string): Promise<string[]> {
  const { rows } = await db.raw(`select a.attname as name from pg_index i join pg_class c on c.oid = i.indrelid
    join pg_namespace n on n.oid = c.relnamespace join lateral unnest(i.indkey) with ordinality as k(attnum, position) on true
    join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
    where n.nspname = ? and c.relname = ? and i.indisprimary order by k.position`, [schema, table]) as { rows: Array<{ name: string }> }
  return rows.map(row => row.name)
}

async function insertableColumns (db: Knex, schema: string, table: string): Promise<string[]> {
  const { rows } = await db.raw(`select column_name as name from information_schema.columns
    where table_schema = ? and table_name = ? and is_generated = 'NEVER' order by ordinal_position`, [schema, table]) as { rows: Array<{ name: string }> }
  return rows.map(row => row.name)
}

async function readSequences (db: Knex, schema: string): Promise<Record<string, number | null>> {
  const { rows } = await db.raw('select sequencename as name, last_value as value from pg_sequences where schemaname = ? order by sequencename', [schema]) as { rows: Array<{ name: string, value: string | number | null }> }
  return Object.fromEntries(rows.map(row => [row.name, row.value === null ? null : Number(row.value)]))
}
