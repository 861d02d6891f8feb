import type { Database, Transaction } from '../sdk/index.js'
import { EVENTS_TABLE } from './events-repository.js'
import type { Shout } from './schemas.js'
import { PINS_TABLE, SHOUTS_TABLE } from './tables.js'

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

export interface ArchiveQuery {
  /** Only shouts with a smaller id. */
  readonly before?: number | undefined
  readonly limit: number
  /** Words to find (web-search syntax: "a phrase", -not, or); never parsed as SQL or tsquery syntax. */
  readonly q?: string | undefined
}

/**
 * The shouts, and with every change the row of `shoutbox_events` the live stream sends:
 * one statement writes both, so neither can exist without the other.
 */
export function shoutsRepository (db: Database) {
  /** `change` is a statement on the shouts table; its rows are recorded as events of `kind`. */
  const withEvents = (trx: Transaction, kind: string, change: ReturnType<Database['raw']>) => trx.raw<{ rows: RecordedRow[] }>(`
    with s as (? returning id, message, username, date),
    e as (insert into ?? (kind, shout, created_at)
          select ?, jsonb_build_object('id', id, 'message', message, 'username', username, 'date', date), ? from s
          order by s.id
          returning id, (shout->>'id')::bigint as shout_id)
    select s.id, s.message, s.username, s.date, e.id as event_id from s join e on e.shout_id = s.id order by s.id`,
  [change, EVENTS_TABLE, kind, Date.now()])

  return {
    /** Newest first (the store's order); `limit` null → all of them. The cut is made in SQL. */
    listQuery (limit: number | null) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).orderBy('id', 'desc')
      return limit === null ? query : query.limit(limit)
    },

    async list (limit: number | null): Promise<Shout[]> {
      return this.listQuery(limit)
    },

    /**
     * Newest first, by id: a walk of the primary key backwards from `before`, filtered by
     * the search index when `q` is given (PostgreSQL picks which index leads).
     */
    archiveQuery ({ before, limit, q }: ArchiveQuery) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).orderBy('id', 'desc').limit(limit)
      if (before !== undefined) query.where('id', '<', before)
      // to_tsvector('simple', message) is the search index's expression (migrations/003), word for word: so PostgreSQL uses it.
      if (q !== undefined) query.whereRaw("to_tsvector('simple', message) @@ websearch_to_tsquery('simple', ?)", [q])
      return query
    },

    async archive (query: ArchiveQuery): Promise<Shout[]> {
      return this.archiveQuery(query)
    },

    async find (id: number): Promise<Shout | undefined> {
      const [shout] = await db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).where('id', id)
      return shout
    },

    /**
     * Deletes the oldest shouts dated before `cutoff`, at most `limit` of them and never a
     * pinned one, each recorded as a `shout-deleted` event exactly as `delete` records one.
     */
    async prune (cutoff: number, limit: number, trx: Transaction): Promise<Recorded[]> {
      const result = await withEvents(trx, 'shout-deleted', trx.raw(`delete from ?? where id in (
          select id from ?? as old where date < ? and not exists (select 1 from ?? as pin where pin.shout_id = old.id)
          order by date limit ?)`, [SHOUTS_TABLE, SHOUTS_TABLE, cutoff, PINS_TABLE, limit]))
      return result.rows.map(recorded)
    },

    /** Stores the shouts in one statement; ids are given in the order of `shouts`. */
    async insert (shouts: ReadonlyArray<Omit<Shout, 'id'>>, trx: Transaction): Promise<Recorded[]> {
      const result = await withEvents(trx, 'shout-created', trx.raw(`insert into ?? (message, username, date)
          select item->>'message', item->>'username', (item->>'date')::bigint
          from jsonb_array_elements(?::jsonb) with ordinality as given(item, position)
          order by position`, [SHOUTS_TABLE, JSON.stringify(shouts)]))
      return result.rows.map(recorded)
    },

    /** The deleted shout, or undefined when there was none with that id. */
    async delete (id: number, trx: Transaction): Promise<Recorded | undefined> {
      const result = await withEvents(trx, 'shout-deleted', trx.raw('delete from ?? where id = ?', [SHOUTS_TABLE, id]))
      const row = result.rows[0]
      return row === undefined ? undefined : recorded(row)
    }
  }
}
