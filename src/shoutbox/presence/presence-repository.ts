import type { Database } from '../../sdk/index.js'
import { PRESENCE_HIDDEN_TABLE, PRESENCE_TABLE } from '../tables.js'

/** A member shown here, and since when (ms). */
export interface PresentMember {
  readonly username: string
  readonly since: number
}

/** Who has one room open on one process (or, summed, on all of them). */
export interface RoomPresence {
  readonly members: readonly PresentMember[]
  /** Readers not named: visitors, and members who chose not to be shown. */
  readonly guests: number
}

interface PresenceRow { room_id: number, members: PresentMember[] | string, guests: number }

/**
 * Who is here, as every process wrote it (`shoutbox_presence`: one row per process and room
 * it has readers of), and who chose not to be shown (`shoutbox_presence_hidden`).
 */
export function presenceRepository (db: Database) {
  return {
    /**
     * Writes what process `process` sees now, `rooms` by room id, in place of what it wrote
     * before (a room it no longer has readers of loses its row), and forgets every row not
     * written since `staleBefore` (a process that stopped without saying so). One transaction.
     */
    async write (process: string, rooms: ReadonlyMap<number, RoomPresence>, now: number, staleBefore: number): Promise<void> {
      await db.transaction(async trx => {
        await trx(PRESENCE_TABLE).where({ process }).whereNotIn('room_id', [...rooms.keys()]).delete()
        if (rooms.size > 0) {
          await trx(PRESENCE_TABLE).insert([...rooms].map(([roomId, here]) => ({ process, room_id: roomId, members: JSON.stringify(here.members), guests: here.guests, seen_at: now })))
            .onConflict(['process', 'room_id']).merge(['members', 'guests', 'seen_at'])
        }
        await trx(PRESENCE_TABLE).where('seen_at', '<', staleBefore).delete()
      })
    },

    /** Takes this process's rows out (it stops). */
    async leave (process: string): Promise<void> {
      await db(PRESENCE_TABLE).where({ process }).delete()
    },

    /**
     * Every room's presence over all processes (only rows written since `freshSince`), by
     * room id: a member on several processes or streams once, since their earliest;
     * the others summed.
     */
    async all (freshSince: number, roomId?: number): Promise<Map<number, RoomPresence>> {
      const query = db(PRESENCE_TABLE).where('seen_at', '>=', freshSince)
      if (roomId !== undefined) query.where({ room_id: roomId })
      const rows: PresenceRow[] = await query.select('room_id', 'members', 'guests')
      const rooms = new Map<number, { members: Map<string, number>, guests: number }>()
      for (const row of rows) {
        const room = rooms.get(row.room_id) ?? { members: new Map<string, number>(), guests: 0 }
        rooms.set(row.room_id, room)
        room.guests += row.guests
        const members = typeof row.members === 'string' ? JSON.parse(row.members) as PresentMember[] : row.members
        for (const { username, since } of members) room.members.set(username, Math.min(since, room.members.get(username) ?? Infinity))
      }
      return new Map([...rooms].map(([id, room]) => [id, {
        members: [...room.members].map(([username, since]) => ({ username, since })).sort((a, b) => a.since - b.since || a.username.localeCompare(b.username)),
        guests: room.guests
      }]))
    },

    /** Those of `userIds` who chose not to be shown. */
    async hiddenOf (userIds: readonly number[]): Promise<Set<number>> {
      if (userIds.length === 0) return new Set()
      const rows: Array<{ user_id: number }> = await db(PRESENCE_HIDDEN_TABLE).whereIn('user_id', [...userIds]).select('user_id')
      return new Set(rows.map(row => row.user_id))
    },

    async shows (userId: number): Promise<boolean> {
      return (await db(PRESENCE_HIDDEN_TABLE).where({ user_id: userId }).first('user_id')) === undefined
    },

    /** Sets member `userId`'s `showPresence`. */
    async setShows (userId: number, shows: boolean): Promise<void> {
      if (shows) await db(PRESENCE_HIDDEN_TABLE).where({ user_id: userId }).delete()
      else await db(PRESENCE_HIDDEN_TABLE).insert({ user_id: userId, created_at: Date.now() }).onConflict('user_id').ignore()
    }
  }
}
