import type { Database } from '../sdk/index.js'
import type { Shout } from './schemas.js'

export type ShoutEventKind = 'shout-created' | 'shout-edited' | 'shout-deleted' | 'shout-pinned' | 'shout-unpinned'

/**
 * A row of the history: a created, edited, pinned or unpinned shout with its four fields,
 * a deleted one by its id alone.
 */
export type ShoutEvent =
  | { readonly id: number, readonly kind: 'shout-created' | 'shout-edited' | 'shout-pinned' | 'shout-unpinned', readonly shout: Shout }
  | { readonly id: number, readonly kind: 'shout-deleted', readonly shout: Pick<Shout, 'id'> }

export const EVENTS_TABLE = 'shoutbox_events'
/** How many past events a reconnecting client can catch up on. */
const HISTORY = 10_000

/**
 * The stream's history; rows are written by shoutsRepository with each change. It holds
 * a shout's text only while the shout exists: deleting a shout deletes its earlier rows.
 */
export function eventsRepository (db: Database) {
  return {
    /** Those of `ids` still kept, in order. */
    async find (ids: readonly number[]): Promise<ShoutEvent[]> {
      return db(EVENTS_TABLE).whereIn('id', ids).orderBy('id').select<ShoutEvent[]>('id', 'kind', 'shout')
    },

    async after (id: number, limit = 1000): Promise<ShoutEvent[]> {
      return db(EVENTS_TABLE).where('id', '>', id).orderBy('id').limit(limit).select<ShoutEvent[]>('id', 'kind', 'shout')
    },

    async latestId (): Promise<number> {
      const row = await db(EVENTS_TABLE).max<{ max: number | null }>('id as max').first()
      return row?.max ?? 0
    },

    /** Keeps the newest HISTORY events. */
    async prune (): Promise<void> {
      await db(EVENTS_TABLE).where('id', '<=', db.raw('(select coalesce(max(id), 0) - ? from ??)', [HISTORY, EVENTS_TABLE])).delete()
    }
  }
}
