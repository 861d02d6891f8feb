import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import tap from 'tap'
import { openDatabase, type OpenDatabase } from '../../src/host/database/connect.js'
import { ensureImage, freshPglite } from './pglite-image.js'

/** Which database this run of the suite uses: `npm test` runs every file on both. */
export const DB_KIND: 'embedded' | 'postgres' = process.env.SHOUTBOX_TEST_DB === 'postgres' ? 'postgres' : 'embedded'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL

export interface TestDatabase {
  /**
   * Opens a connection to this test's database; each app gets its own (the app closes
   * it). On the embedded database only one may be open at a time, as with one process.
   */
  open (): Promise<OpenDatabase>
  /** Removes what the test created. */
  drop (): Promise<void>
  readonly schema: string
}

export interface TestDatabaseOptions {
  /** Embedded only: keep the files on disk so the database survives a restart of the app. */
  readonly persistent?: boolean
}

/**
 * A database of its own for one test: a new schema, on PostgreSQL or in an embedded
 * instance of this process's pool (`persistent`: an instance of its own, on disk). On PostgreSQL several apps can share one (several processes).
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

/**
 * The embedded databases the in-memory tests of this process borrow, each a schema at a
 * time: starting one costs a second or more, a schema in it a few milliseconds. A test
 * that asks while every one is lent out (a subtest's app while its parent's is open) gets
 * a new one, which the pool keeps: two apps never share an instance's one connection
 * (their transactions would interleave).
 */
const pool: Array<{ readonly pglite: PGlite, lent: boolean }> = []

async function embeddedInMemory (): Promise<TestDatabase> {
  let lender = pool.find(entry => !entry.lent && !entry.pglite.closed)
  if (lender === undefined) {
    const pglite = await freshPglite()
    lender = { pglite, lent: false }
    pool.push(lender)
    // An open instance keeps the process alive: it closes when the file's tests are done.
    tap.teardown(() => pglite.close())
  }
  const instance = lender
  instance.lent = true
  const schema = `t_${randomBytes(6).toString('hex')}`
  let opened = false
  let closed = false
  let dropped = false
  // Once the app has closed its connection and the test has dropped its database, the
  // schema goes and the session is reset (search_path, locks, a transaction left open),
  // so the next test finds the instance as new.
  const giveBack = async (): Promise<void> => {
    if (!instance.lent || !dropped || (opened && !closed)) return
    await instance.pglite.exec('rollback').catch(() => {})
    await instance.pglite.exec(`reset all; select pg_advisory_unlock_all(); drop schema if exists "${schema}" cascade`)
    instance.lent = false
  }
  // The app's connection: the instance, except that closing it gives it back.
  const lent = new Proxy(instance.pglite, {
    get (target, property) {
      if (property === 'close') return async () => { closed = true; await giveBack() }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
  return {
    schema,
    async open () {
      if (opened) throw new Error('an in-memory embedded database cannot be reopened; use { persistent: true }')
      opened = true
      return openDatabase({ pglite: lent, schema })
    },
    async drop () {
      dropped = true
      await giveBack()
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
