import type { Database } from '../sdk/index.js'
import type { Shout } from './schemas.js'

export type ShoutEventKind = 'shout-created' | 'shout-deleted' | 'shout-pinned' | 'shout-unpinned'

export interface ShoutEvent {
  readonly id: number
  readonly kind: ShoutEventKind
  readonly shout: Shout
}

export const EVENTS_TABLE = 'shoutbox_events'
/** How many past events a reconnecting client can catch up on. */
const HISTORY = 10_000

/** The stream's history; rows are written by shoutsRepository with each change. */
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
