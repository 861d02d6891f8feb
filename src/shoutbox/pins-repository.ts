import type { Database, SqlPart, Transaction } from '../sdk/index.js'
import type { Room } from './rooms.js'
import type { RoomShout } from './schemas.js'
import { botOf, editedOf, replyToOf } from './shouts-repository.js'
import { uploadsOf } from './pictures/attachments.js'
import { EVENTS_TABLE, PINS_LOCK, PINS_TABLE, ROOMS_TABLE, SHOUTS_TABLE } from './tables.js'

/** A foreign key violation: the shout was deleted while it was being pinned. */
const PG_FOREIGN_KEY_VIOLATION = '23503'

/**
 * The pinned shouts. A pin or an unpin writes its row and the `shout-pinned` /
 * `shout-unpinned` row of the live stream in one statement, as shoutsRepository does for
 * shouts.
 */
export function pinsRepository (db: Database) {
  /** Records `kind` for the shouts whose ids the statement `change` on the pins table returns as `shout_id`. */
  const withEvent = async (kind: string, change: SqlPart, trx: Transaction): Promise<number | undefined> => {
    const result = await trx.raw<{ rows: Array<{ id: number }> }>(`
      with p as (? returning shout_id)
      insert into ?? (kind, shout, created_at)
      select ?, jsonb_build_object('id', s.id, 'message', s.message, 'username', s.username, 'date', s.date, 'room', r.slug, 'replyTo', ${replyToOf('s.reply_to_id')}) || ${botOf('s')} || ${editedOf('s')} || ${uploadsOf('s')}, ?
      from p join ?? as s on s.id = p.shout_id join ?? as r on r.id = s.room_id
      returning id`, [change, EVENTS_TABLE, kind, Date.now(), SHOUTS_TABLE, ROOMS_TABLE])
    return result.rows[0]?.id
  }

  return {
    /** The room's pinned shouts, newest pin first. */
    async list (room: Pick<Room, 'id' | 'slug'>): Promise<RoomShout[]> {
      const rows = await db(`${PINS_TABLE} as p`).join(`${SHOUTS_TABLE} as s`, 's.id', 'p.shout_id').where('s.room_id', room.id).whereNull('s.state')
        .orderBy('p.id', 'desc').select<Array<RoomShout & { by_bot: boolean, by_hook: string | null, by_guest: boolean, edited_at: number | string | null }>>('s.id', 's.message', 's.username', 's.date', db.raw('?::text as room', [room.slug]),
          db.raw(`${replyToOf('s.reply_to_id')} as "replyTo"`), 's.bot as by_bot', 's.via as by_hook', 's.guest as by_guest', 's.edited_at')
      // A bot's shout says so (and a hook's which), a guest's too, a changed one when; a person's unchanged one has none of these keys.
      return rows.map(({ by_bot: bot, by_hook: via, by_guest: guest, edited_at: editedAt, ...shout }) => ({
        ...shout, ...(bot || via !== null ? { bot: true as const } : {}), ...(via === null ? {} : { via }), ...(guest ? { guest: true as const } : {}), ...(editedAt === null ? {} : { edited: Number(editedAt) })
      }))
    },

    /**
     * Until `trx` ends, no other pin, unpin or pruning run (in any process): what is
     * counted stays true until it is written, so two pins at once cannot pass `maxPinned`
     * together. An advisory lock rather than a table lock: a delete's cascade into this
     * table never waits on it, so a delete and a pin at once cannot deadlock. Reads go on.
     */
    async lock (trx: Transaction): Promise<void> {
      await trx.raw('select pg_advisory_xact_lock(?, hashtext(current_schema()))', [PINS_LOCK])
    },

    /** How many of the room's shouts are pinned (`maxPinned` applies per room). */
    async count (roomId: number, trx: Transaction): Promise<number> {
      const row = await trx(`${PINS_TABLE} as p`).join(`${SHOUTS_TABLE} as s`, 's.id', 'p.shout_id').where('s.room_id', roomId)
        .count<Array<{ count: number | string }>>({ count: '*' }).first()
      return Number(row?.count ?? 0)
    },

    async isPinned (shoutId: number, trx: Transaction): Promise<boolean> {
      return await trx(PINS_TABLE).where('shout_id', shoutId).first('id') !== undefined
    },

    /** The event id; `undefined` when there is no such shout (any more). */
    async pin (shoutId: number, trx: Transaction): Promise<number | undefined> {
      try {
        return await withEvent('shout-pinned', trx.raw('insert into ?? (shout_id, pinned_at) values (?, ?)', [PINS_TABLE, shoutId, Date.now()]), trx)
      } catch (error) {
        if ((error as { code?: unknown }).code === PG_FOREIGN_KEY_VIOLATION) return undefined
        throw error
      }
    },

    /** The event id; `undefined` when the shout was not pinned. */
    async unpin (shoutId: number, trx: Transaction): Promise<number | undefined> {
      return withEvent('shout-unpinned', trx.raw('delete from ?? where shout_id = ?', [PINS_TABLE, shoutId]), trx)
    }
  }
}
