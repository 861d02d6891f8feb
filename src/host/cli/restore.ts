/**
 * `npm run restore -- FOLDER`: a backup made by `npm run backup` into an empty board: an
 * empty data folder (DATA_DIR or --data-dir), or an empty PostgreSQL schema
 * (DATABASE_URL, DATABASE_SCHEMA). The board must not be running on it. Its migrations
 * are run first, then every row is replaced by the backup's in one transaction, and the
 * address secret is put back in the data folder (unless ADDRESS_SECRET is set).
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../app.js'
import { ConfigError, loadConfig } from '../config.js'
import { BackupError, loadBackup, readManifest } from '../database/backup.js'
import { openDatabase } from '../database/connect.js'
import { DataDirInUse } from '../database/data-dir-claim.js'
import { ADDRESS_SECRET_FILE } from '../identity/address-secret.js'

function fail (line: string): never {
  process.stderr.write(`restore: ${line}\n`)
  process.exit(1)
}

const { values, positionals } = parseArgs({ options: { 'data-dir': { type: 'string' }, 'addons-dir': { type: 'string' } }, allowPositionals: true, strict: true })
if (positionals.length !== 1) fail('usage: restore FOLDER (a folder made by npm run backup)')
const folder = path.resolve(positionals[0]!)
const args = [
  ...(values['data-dir'] === undefined ? [] : ['--data-dir', values['data-dir']]),
  ...(values['addons-dir'] === undefined ? [] : ['--addons-dir', values['addons-dir']])
]
const config = (() => {
  try {
    return loadConfig(args, process.env)
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
})()
const manifest = await readManifest(folder).catch((error: unknown) => fail(error instanceof BackupError ? error.message : String(error)))

// Only into an empty board: a restore replaces every row, and a mistyped DATA_DIR must not cost a live board its data.
if (config.databaseUrl === undefined) {
  if (await fs.access(path.join(config.dataDir, 'pgdata')).then(() => true, () => false)) fail(`${config.dataDir} already holds a database: restore into an empty data folder`)
} else {
  const database = await openDatabase({ url: config.databaseUrl, schema: config.databaseSchema, poolSize: 1 })
  const { rows } = await database.knex.raw('select count(*)::int as tables from information_schema.tables where table_schema = ?', [config.databaseSchema]) as { rows: Array<{ tables: number }> }
  await database.knex.destroy()
  if (rows[0]!.tables > 0) fail(`schema ${config.databaseSchema} already holds tables: restore into an empty schema (DATABASE_SCHEMA) or database`)
}
if (manifest.addressSecret === 'file' && config.addressSecret === undefined) {
  await fs.mkdir(config.dataDir, { recursive: true })
  await fs.copyFile(path.join(folder, ADDRESS_SECRET_FILE), path.join(config.dataDir, ADDRESS_SECRET_FILE), fs.constants.COPYFILE_EXCL)
    .catch(() => fail(`${path.join(config.dataDir, ADDRESS_SECRET_FILE)} exists already: restore into an empty data folder`))
  await fs.chmod(path.join(config.dataDir, ADDRESS_SECRET_FILE), 0o600)
}
if (manifest.addressSecret === 'environment' && config.addressSecret === undefined) {
  process.stderr.write('restore: the backup was made with ADDRESS_SECRET set; set the same one before starting the board\n')
}

// The app's own start makes the host's tables, and starting the addons theirs, before the rows go in.
const app = await buildApp({ config: { ...config, logLevel: 'warn' }, logger: { level: 'warn' } }).catch((error: unknown) => {
  if (error instanceof DataDirInUse) fail(`${error.message}; stop the server first`)
  if (error instanceof ConfigError) fail(error.message)
  throw error
})
try {
  // An empty board starts its addons (and runs their migrations) only once setup is done.
  await app.addons.start()
  await loadBackup(app.db, config.databaseSchema, folder)
} catch (error) {
  await app.close()
  if (error instanceof BackupError) fail(error.message)
  throw error
}
await app.close()
const rows = Object.values(manifest.tables).reduce((sum, count) => sum + count, 0)
process.stdout.write(`restored ${rows} rows of ${Object.keys(manifest.tables).length} tables from ${folder} (made ${manifest.madeAt})\n`)
