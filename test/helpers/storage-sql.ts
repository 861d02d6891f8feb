import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import type { ServerStorage } from './server.js'

/**
 * Reads a host's database directly, the way an operator would check it: PostgreSQL at
 * any time; the embedded one only while no host process has it open.
 */
export async function querySql<T = Record<string, unknown>> (storage: ServerStorage, sql: string): Promise<T[]> {
  const { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATA_DIR: dataDir } = storage.env
  if (url !== undefined && url !== '') {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(`set search_path to "${schema}"`)
      return (await client.query(sql)).rows as T[]
    } finally {
      await client.end()
    }
  }
  const db = await PGlite.create(path.join(dataDir!, 'pgdata'))
  try {
    return (await db.query<T>(sql)).rows
  } finally {
    await db.close()
  }
}
