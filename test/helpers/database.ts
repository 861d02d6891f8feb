import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { openDatabase, type Database } from '../../src/host/database/connect.js'
import { ensureImage, freshPglite } from './pglite-image.js'

/** Which database this run of the suite uses: `npm test` runs every file on both. */
export const DB_KIND: 'embedded' | 'postgres' = process.env.SHOUTBOX_TEST_DB === 'postgres' ? 'postgres' : 'embedded'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL

export interface TestDatabase {
  /**
   * Opens a connection to this test's database; each app gets its own (the app closes
   * it). On the embedded database only one may be open at a time, as with one process.
   */
  open (): Promise<Database>
  /** Removes what the test created. */
  drop (): Promise<void>
  readonly schema: string
}

export interface TestDatabaseOptions {
  /** Embedded only: keep the files on disk so the database survives a restart of the app. */
  readonly persistent?: boolean
}

/**
 * A database of its own for one test: on PostgreSQL a new schema, on the embedded
 * database a new instance. On PostgreSQL several apps can share one (several processes).
 */
export async function testDatabase (options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (DB_KIND === 'postgres') return postgresSchema()
  return options.persistent === true ? embeddedOnDisk() : embeddedInMemory()
}

function postgresSchema (): TestDatabase {
  if (TEST_DATABASE_URL === undefined) throw new Error('SHOUTBOX_TEST_DB=postgres needs TEST_DATABASE_URL')
  const url = TEST_DATABASE_URL
  const schema = `t_${randomBytes(6).toString('hex')}`
  return {
    schema,
    open: () => openDatabase({ url, schema, poolSize: 20 }),
    async drop () {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`drop schema if exists "${schema}" cascade`)
      await client.end()
    }
  }
}

async function embeddedInMemory (): Promise<TestDatabase> {
  const pglite = await freshPglite()
  let opened = false
  return {
    schema: 'public',
    async open () {
      if (opened) throw new Error('an in-memory embedded database cannot be reopened; use { persistent: true }')
      opened = true
      return openDatabase({ pglite })
    },
    async drop () {
      if (!pglite.closed) await pglite.close()
    }
  }
}

async function embeddedOnDisk (): Promise<TestDatabase> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-pgdata-'))
  let current: PGlite | undefined
  let created = false
  return {
    schema: 'public',
    async open () {
      if (current !== undefined && !current.closed) throw new Error('the embedded database is still open in another app')
      current = created ? await PGlite.create(dir) : await PGlite.create(dir, { loadDataDir: await ensureImage() })
      created = true
      return openDatabase({ pglite: current })
    },
    async drop () {
      if (current !== undefined && !current.closed) await current.close()
      await fs.rm(dir, { recursive: true, force: true })
    }
  }
}
