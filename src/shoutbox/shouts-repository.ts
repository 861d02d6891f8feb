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
  const withEvents = (kind: string, change: string) => `
    with s as (${change} returning id, message, username, date),
    e as (insert into shoutbox_events (kind, shout, created_at)
          select '${kind}', jsonb_build_object('id', id, 'message', message, 'username', username, 'date', date), ? from s
          order by s.id
          returning id, (shout->>'id')::bigint as shout_id)
    select s.id, s.message, s.username, s.date, e.id as event_id from s join e on e.shout_id = s.id order by s.id`

  return {
    /** Newest first (the store's order); `limit` null → all of them. The cut is made in SQL. */
    listQuery (limit: number | null) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).orderBy('id', 'desc')
      return limit === null ? query : query.limit(limit)
    },

    async list (limit: number | null): Promise<Shout[]> {
      return this.listQuery(limit)
    },

    /** Stores the shouts in one statement; ids are given in the order of `shouts`. */
    async insert (shouts: ReadonlyArray<Omit<Shout, 'id'>>, trx: Transaction): Promise<Recorded[]> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(
        withEvents('shout-created', `insert into ${SHOUTS_TABLE} (message, username, date)
          select item->>'message', item->>'username', (item->>'date')::bigint
          from jsonb_array_elements(?::jsonb) with ordinality as given(item, position)
          order by position`),
        [JSON.stringify(shouts), Date.now()])
      return result.rows.map(recorded)
    },

    /** The deleted shout, or undefined when there was none with that id. */
    async delete (id: number, trx: Transaction): Promise<Recorded | undefined> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(
        withEvents('shout-deleted', `delete from ${SHOUTS_TABLE} where id = ?`), [id, Date.now()])
      const row = result.rows[0]
      return row === undefined ? undefined : recorded(row)
    }
  }
}
