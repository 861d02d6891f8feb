import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openDatabase, type Database } from '../../src/host/database/connect.js'
import { freshPglite } from './pglite-image.js'

/** Which database this run of the suite uses: `npm test` runs every file on both. */
export const DB_KIND: 'embedded' | 'postgres' = process.env.SHOUTBOX_TEST_DB === 'postgres' ? 'postgres' : 'embedded'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL

export interface TestDatabase {
  /** Opens a connection to this test's database; each app gets its own (the app closes it). */
  open (): Promise<Database>
  /** Removes what the test created. */
  drop (): Promise<void>
  readonly schema: string
}

/**
 * A database of its own for one test: on PostgreSQL a new schema, on the embedded
 * database a new in-memory instance. Several apps can share one (several processes).
 */
export async function testDatabase (): Promise<TestDatabase> {
  if (DB_KIND === 'postgres') {
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
  const pglite = await freshPglite()
  let opened = false
  return {
    schema: 'public',
    async open () {
      if (opened) throw new Error('the embedded database belongs to one process: open it once')
      opened = true
      return openDatabase({ pglite })
    },
    async drop () {
      if (!pglite.closed) await pglite.close()
    }
  }
}
