import type { Database } from '../sdk/index.js'
import type { ShoutEvent } from './changes/kinds.js'
import { EVENTS_TABLE } from './tables.js'

/** How many past events the history keeps (older ones are pruned). */
const HISTORY = 10_000
/** How many of them a reconnecting client is sent at most; further behind, it is told to start over. */
const REPLAY_LIMIT = 1000

/**
 * The stream's history; rows are written by shoutsRepository with each change. It holds
 * a shout's text only while the shout exists: deleting a shout deletes its earlier rows.
 */
export function streamHistoryRepository (db: Database) {
  return {
    /** Those of `ids` still kept, in order. */
    async find (ids: readonly number[]): Promise<ShoutEvent[]> {
      return db(EVENTS_TABLE).whereIn('id', ids).orderBy('id').select<ShoutEvent[]>('id', 'kind', 'shout')
    },

    /**
     * What a client that last saw event `id` missed, oldest first; or `'too-far'` when that
     * cannot all be sent: more than REPLAY_LIMIT events, an id from before the kept
     * history (some may have been pruned), or one this history never reached (another
     * installation's, or a database made anew).
     */
    async replayAfter (id: number): Promise<ShoutEvent[] | 'too-far'> {
      const [missed, latest] = await Promise.all([
        db(EVENTS_TABLE).where('id', '>', id).orderBy('id').limit(REPLAY_LIMIT + 1).select<ShoutEvent[]>('id', 'kind', 'shout'),
        this.latestId()
      ])
      // Pruning removes ids up to (the newest then) − HISTORY, never more.
      if (missed.length > REPLAY_LIMIT || id < latest - HISTORY || id > latest) return 'too-far'
      return missed
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
