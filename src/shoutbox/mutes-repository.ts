import type { Database, Transaction } from '../sdk/index.js'
import { MUTES_TABLE } from './tables.js'

/** A mute as answered: who, until when (ms, or null until lifted), why, by whom (the moderator's username; null: the board itself). */
export interface Mute {
  readonly userId: number
  readonly username: string
  readonly until: number | null
  readonly reason: string | null
  readonly by: string | null
}

export interface NewMute extends Mute {
  readonly byId: number | null
  readonly createdAt: number
}

interface Row {
  user_id: number
  username: string
  until: string | number | null
  reason: string | null
  by_username: string | null
}

const toMute = (row: Row): Mute => ({
  userId: row.user_id,
  username: row.username,
  until: row.until === null ? null : Number(row.until),
  reason: row.reason,
  by: row.by_username
})

/**
 * The mutes in force. "In force" is decided against `now` on every read, so a mute ends
 * by itself when its `until` passes, on every process, with nothing to run: an expired
 * row refuses nothing and is not listed (a new mute of that member replaces it).
 */
export function mutesRepository (db: Database) {
  return {
    /** The member's mute in force at `now`, if any. */
    async active (userId: number, now: number, trx: Database = db): Promise<Mute | undefined> {
      const row = await trx(MUTES_TABLE).where({ user_id: userId }).where(q => { void q.whereNull('until').orWhere('until', '>', now) }).first<Row | undefined>()
      return row === undefined ? undefined : toMute(row)
    },

    /** Every mute in force at `now`, the latest made first. */
    /** How many mutes are in force at `now`. */
    async count (now: number): Promise<number> {
      const [row] = await db(MUTES_TABLE).where(q => { void q.whereNull('until').orWhere('until', '>', now) }).count<Array<{ count: string | number }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    async list (now: number): Promise<Mute[]> {
      const rows: Row[] = await db(MUTES_TABLE).where(q => { void q.whereNull('until').orWhere('until', '>', now) }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'user_id', order: 'desc' }])
      return rows.map(toMute)
    },

    /** Mutes the member, replacing any mute they had (in force or expired). */
    async put (mute: NewMute, trx: Transaction): Promise<Mute> {
      const [row] = await trx(MUTES_TABLE).insert({
        user_id: mute.userId,
        username: mute.username,
        until: mute.until,
        reason: mute.reason,
        by_id: mute.byId,
        by_username: mute.by,
        created_at: mute.createdAt
      }).onConflict('user_id').merge().returning<Row[]>('*')
      return toMute(row!)
    },

    /** Lifts the member's mute; the mute that was in force at `now`, undefined when there was none (an expired row goes too). */
    async lift (userId: number, now: number, trx: Transaction): Promise<Mute | undefined> {
      const rows: Row[] = await trx(MUTES_TABLE).where({ user_id: userId }).delete().returning('*')
      const row = rows[0]
      if (row === undefined) return undefined
      const mute = toMute(row)
      return mute.until === null || mute.until > now ? mute : undefined
    }
  }
}
