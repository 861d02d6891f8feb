import type { Database, Transaction } from '../../sdk/index.js'
import { conversationSlug } from '../rooms.js'
import { DIRECT_PREFERENCES_TABLE, ROOMS_TABLE, SHOUTS_TABLE } from '../tables.js'

/**
 * A conversation's `read` and `post`: a node no role is given. The access policy decides a
 * conversation by its members (`canRead`), never by these; they only keep a path that
 * forgot to ask from reading one as a room open to members.
 */
const DIRECT_NODE = 'addon.shoutbox.direct.~'

/** Who may start a conversation with a member: anyone, or no one. */
export const ACCEPT_CHOICES = ['everyone', 'nobody'] as const
export type AcceptDirectMessages = typeof ACCEPT_CHOICES[number]

/** The most conversations a member's list answers: the most recently active first. */
export const LISTED_CONVERSATIONS = 100

/** A conversation as its member's list shows it, before names are read. */
export interface ConversationRow {
  readonly id: number
  /** The other member's id; null once they were erased. */
  readonly other: number | null
  readonly last: { readonly id: number, readonly username: string, readonly message: string, readonly date: number } | null
}

interface ListedRow {
  id: number
  other: number | null
  last_id: number | string | null
  username: string | null
  message: string | null
  date: number | string | null
}

/** The two members of a pair in the order a conversation stores them. */
export const pairOf = (a: number, b: number): [number, number] => a < b ? [a, b] : [b, a]

/**
 * Conversations of two, as rows of the rooms table (kind `direct`, its two members), and
 * each member's choice of who may start one with them.
 */
export function conversationsRepository (db: Database) {
  return {
    /** The id of the conversation of `a` and `b`; undefined when they have none. */
    async between (a: number, b: number, trx: Database = db): Promise<number | undefined> {
      const [low, high] = pairOf(a, b)
      const row = await trx(ROOMS_TABLE).where({ kind: 'direct', member_low: low, member_high: high }).first<{ id: number } | undefined>('id')
      return row?.id
    },

    /** Starts the conversation of `a` and `b` (by `a`); the one already there when another start won the race. */
    async start (a: number, b: number, trx: Transaction): Promise<{ id: number, slug: string, started: boolean }> {
      const [low, high] = pairOf(a, b)
      const { rows: [next] } = await trx.raw<{ rows: Array<{ id: number | string }> }>("select nextval(pg_get_serial_sequence(?, 'id')) as id", [ROOMS_TABLE])
      const id = Number(next!.id)
      const slug = conversationSlug(id)
      const [made] = await trx(ROOMS_TABLE)
        .insert({ id, slug, name: '', kind: 'direct', member_low: low, member_high: high, started_by: a, read_access: DIRECT_NODE, post_access: DIRECT_NODE, created_at: Date.now() })
        .onConflict(trx.raw("(member_low, member_high) where kind = 'direct'")).ignore().returning<Array<{ id: number }>>('id')
      if (made !== undefined) return { id, slug, started: true }
      const there = (await this.between(a, b, trx))!
      return { id: there, slug: conversationSlug(there), started: false }
    },

    /** How many conversations `userId` started since `since` (ms), and when the oldest of them was. */
    async startedSince (userId: number, since: number, trx: Transaction): Promise<number[]> {
      const rows = await trx(ROOMS_TABLE).where({ kind: 'direct', started_by: userId }).andWhere('created_at', '>=', since)
        .orderBy('created_at').pluck('created_at')
      return rows.map(Number)
    },

    /** `userId`'s conversations, the one with the newest message first (those with none last, newest first). */
    async of (userId: number, limit = LISTED_CONVERSATIONS): Promise<ConversationRow[]> {
      const { rows } = await db.raw<{ rows: ListedRow[] }>(`
        select r.id, case when r.member_low = ? then r.member_high else r.member_low end as other,
          l.id as last_id, l.username, l.message, l.date
        from ?? r
        left join lateral (select s.id, s.username, s.message, s.date from ?? s
          where s.room_id = r.id and s.state is null order by s.id desc limit 1) l on true
        where r.kind = 'direct' and (r.member_low = ? or r.member_high = ?)
        order by coalesce(l.id, 0) desc, r.id desc
        limit ?`, [userId, ROOMS_TABLE, SHOUTS_TABLE, userId, userId, limit])
      return rows.map(row => ({
        id: row.id,
        other: row.other,
        last: row.last_id === null ? null : { id: Number(row.last_id), username: row.username!, message: row.message!, date: Number(row.date) }
      }))
    },

    /** Up to `count` messages of conversation `roomId` before message `id`, oldest first: what a reported one is judged with. */
    async before (roomId: number, id: number, count: number): Promise<Array<{ id: number, message: string, username: string, date: number }>> {
      const rows = await db(SHOUTS_TABLE).where({ room_id: roomId }).andWhere('id', '<', id).whereNull('state')
        .orderBy('id', 'desc').limit(count).select<Array<{ id: number | string, message: string, username: string, date: number | string }>>('id', 'message', 'username', 'date')
      return rows.reverse().map(row => ({ id: Number(row.id), message: row.message, username: row.username, date: Number(row.date) }))
    },

    /** The ids of every conversation `userId` is a member of. */
    async idsOf (userId: number, trx: Database = db): Promise<number[]> {
      return (await trx(ROOMS_TABLE).where({ kind: 'direct' }).andWhere(query => { void query.where({ member_low: userId }).orWhere({ member_high: userId }) }).pluck('id')).map(Number)
    },

    /** Who may start a conversation with `userId` (`everyone` unless they changed it; also for no such account). */
    async accepts (userId: number, trx: Database = db): Promise<AcceptDirectMessages> {
      const row = await trx(DIRECT_PREFERENCES_TABLE).where({ user_id: userId }).first<{ accept: AcceptDirectMessages } | undefined>('accept')
      return row?.accept ?? 'everyone'
    },

    async setAccepts (userId: number, accept: AcceptDirectMessages): Promise<AcceptDirectMessages> {
      await db(DIRECT_PREFERENCES_TABLE).insert({ user_id: userId, accept, updated_at: Date.now() })
        .onConflict('user_id').merge(['accept', 'updated_at'])
      return accept
    }
  }
}
