/**
 * `npm run backup -- [FOLDER]`: the board's rows (a consistent snapshot), and the data
 * folder's address secret, into FOLDER (default `backup-<date>-<time>`; it must not
 * exist). Settings as the server's: the same environment (DATABASE_URL, DATABASE_SCHEMA,
 * DATA_DIR, ADDRESS_SECRET) and --data-dir.
 *
 * On PostgreSQL it runs beside the board (one read-only transaction; the board goes on
 * writing). The embedded database can be open in one process only, so the board must be
 * stopped for it — a few seconds for a community board. docs/operations.md says more.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.js'
import { openDatabase } from '../database/connect.js'
import { BackupError, writeBackup, type BackupManifest } from '../database/backup.js'
import { DataDirInUse } from '../database/data-dir-claim.js'
import { SCHEMA_MIGRATIONS_TABLE } from '../database/tables.js'
import { ADDRESS_SECRET_FILE } from '../identity/address-secret.js'

function fail (line: string): never {
  process.stderr.write(`backup: ${line}\n`)
  process.exit(1)
}

const { values, positionals } = parseArgs({ options: { 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true })
const config = (() => {
  try {
    return loadConfig(values['data-dir'] === undefined ? [] : ['--data-dir', values['data-dir']], process.env)
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
})()
const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
const folder = path.resolve(positionals[0] ?? `backup-${stamp}`)
if (await fs.readdir(folder).then(files => files.length > 0, () => false)) fail(`${folder} is not empty: give a new folder`)

if (config.databaseUrl === undefined && !await fs.access(path.join(config.dataDir, 'pgdata', 'PG_VERSION')).then(() => true, () => false)) {
  fail(`${config.dataDir} holds no embedded database: nothing to back up (is DATA_DIR or --data-dir right?)`)
}
const database = await openDatabase({ url: config.databaseUrl, schema: config.databaseSchema, dataDir: config.dataDir, poolSize: 1 }).catch((error: unknown) => {
  if (error instanceof DataDirInUse) fail(`${error.message}: the embedded database can be open in one process only; stop the board, back up, and start it again`)
  throw error
})
let manifest: BackupManifest
try {
  if (!await database.knex.schema.hasTable(SCHEMA_MIGRATIONS_TABLE)) fail(`schema ${config.databaseSchema} holds no board: nothing to back up`)
  await fs.mkdir(folder, { recursive: true, mode: 0o700 })
  const secretFile = path.join(config.dataDir, ADDRESS_SECRET_FILE)
  const secret = config.addressSecret !== undefined ? 'environment' : await fs.copyFile(secretFile, path.join(folder, ADDRESS_SECRET_FILE)).then(() => 'file' as const, () => 'none' as const)
  manifest = await writeBackup(database.knex, config.databaseSchema, folder, secret)
} catch (error) {
  if (error instanceof BackupError) fail(error.message)
  throw error
} finally {
  await database.knex.destroy()
}
const rows = Object.values(manifest.tables).reduce((sum, count) => sum + count, 0)
process.stdout.write(`backed up ${rows} rows of ${Object.keys(manifest.tables).length} tables into ${folder}\n`)
if (manifest.addressSecret === 'environment') process.stdout.write('the address secret is in ADDRESS_SECRET, not in the backup: keep it with the backup\n')
if (manifest.addressSecret === 'file') process.stdout.write(`with ${ADDRESS_SECRET_FILE}: keep the backup as private as the data folder\n`)
