import type { Database, Transaction } from '../sdk/index.js'
import type { Shout } from './schemas.js'

export const SHOUTS_TABLE = 'shoutbox_shouts'
const COLUMNS = ['id', 'message', 'username', 'date'] as const

/** A change to the shouts together with the id of the stream event recording it. */
export interface Recorded {
  readonly shout: Shout
  readonly eventId: number
}

interface RecordedRow extends Shout {
  readonly event_id: number
}

const recorded = ({ event_id: eventId, ...shout }: RecordedRow): Recorded => ({ shout, eventId })

/**
 * The shouts, and with every change the row of `shoutbox_events` the live stream sends:
 * one statement writes both, so neither can exist without the other.
 */
export function shoutsRepository (db: Database) {
  const withEvent = (kind: string, change: string) => `
    with s as (${change} returning id, message, username, date),
    e as (insert into shoutbox_events (kind, shout, created_at)
          select '${kind}', jsonb_build_object('id', id, 'message', message, 'username', username, 'date', date), ? from s
          returning id)
    select s.id, s.message, s.username, s.date, e.id as event_id from s, e`

  return {
    /** Newest first (the store's order); `limit` null → all of them. The cut is made in SQL. */
    listQuery (limit: number | null) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).orderBy('id', 'desc')
      return limit === null ? query : query.limit(limit)
    },

    async list (limit: number | null): Promise<Shout[]> {
      return this.listQuery(limit)
    },

    async insert (shout: Omit<Shout, 'id'>, trx: Transaction): Promise<Recorded> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(
        withEvent('shout-created', `insert into ${SHOUTS_TABLE} (message, username, date) values (?, ?, ?)`),
        [shout.message, shout.username, shout.date, Date.now()])
      return recorded(result.rows[0]!)
    },

    /** The deleted shout, or undefined when there was none with that id. */
    async delete (id: number, trx: Transaction): Promise<Recorded | undefined> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(
        withEvent('shout-deleted', `delete from ${SHOUTS_TABLE} where id = ?`), [id, Date.now()])
      const row = result.rows[0]
      return row === undefined ? undefined : recorded(row)
    }
  }
}
