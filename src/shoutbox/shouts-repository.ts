import type { Database, Transaction } from '../sdk/index.js'
import type { Shout } from './schemas.js'

export const SHOUTS_TABLE = 'shoutbox_shouts'
const COLUMNS = ['id', 'message', 'username', 'date'] as const

export function shoutsRepository (db: Database) {
  return {
    /** Newest first (the store's order); `limit` null → all of them. The cut is made in SQL. */
    listQuery (limit: number | null) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).orderBy('id', 'desc')
      return limit === null ? query : query.limit(limit)
    },

    async list (limit: number | null): Promise<Shout[]> {
      return this.listQuery(limit)
    },

    async insert (shout: Omit<Shout, 'id'>, trx: Transaction): Promise<Shout> {
      const [row] = await trx(SHOUTS_TABLE).insert(shout).returning<Shout[]>([...COLUMNS])
      return row as Shout
    },

    /** The deleted shout, or undefined when there was none with that id. */
    async delete (id: number, trx: Transaction): Promise<Shout | undefined> {
      const [row] = await trx(SHOUTS_TABLE).where({ id }).delete().returning<Shout[]>([...COLUMNS])
      return row
    }
  }
}
