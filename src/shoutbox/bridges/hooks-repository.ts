import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Database, Transaction } from '../../sdk/index.js'

/** The incoming hooks: a room each, a name, and the SHA-256 of the secret in its URL. */
export const INCOMING_HOOKS_TABLE = 'shoutbox_incoming_hooks'

export interface IncomingHook {
  readonly id: number
  readonly roomId: number
  readonly name: string
  readonly createdAt: number
}

interface HookRow { id: number, room_id: number, name: string, created_at: number | string }
const COLUMNS = ['id', 'room_id', 'name', 'created_at']
const toHook = (row: HookRow): IncomingHook => ({ id: row.id, roomId: row.room_id, name: row.name, createdAt: Number(row.created_at) })

const hashOf = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest()

/** What an unknown hook's secret is compared with, so that it takes as long as a known one's. */
const NO_HASH = hashOf(randomBytes(32).toString('base64url'))

/** Whether a post through a hook may go now, or when the next one may (ms). */
export type Admission = { readonly admitted: true } | { readonly admitted: false, readonly retryAfterMs: number }

export function incomingHooksRepository (db: Database, now: () => number = Date.now) {
  return {
    /** Every hook, oldest first. */
    async list (): Promise<IncomingHook[]> {
      return (await db(INCOMING_HOOKS_TABLE).orderBy('id').select<HookRow[]>(COLUMNS)).map(toHook)
    },

    /** Locks the table against other adds until `trx` ends: a count against the most is then true. */
    async lockForAdd (trx: Transaction): Promise<void> {
      await trx.raw('lock table ?? in share row exclusive mode', [INCOMING_HOOKS_TABLE])
    },

    async count (trx: Transaction): Promise<number> {
      const [row] = await trx(INCOMING_HOOKS_TABLE).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    /** A new hook and its secret (32 random bytes, base64url): only its hash is kept. */
    async create (hook: { roomId: number, name: string, createdBy: number }, trx: Transaction): Promise<{ hook: IncomingHook, secret: string }> {
      const secret = randomBytes(32).toString('base64url')
      const [row] = await trx(INCOMING_HOOKS_TABLE)
        .insert({ room_id: hook.roomId, name: hook.name, secret_hash: hashOf(secret), created_by: hook.createdBy, created_at: now() })
        .returning<HookRow[]>(COLUMNS)
      return { hook: toHook(row!), secret }
    },

    async find (id: number, trx: Database = db): Promise<IncomingHook | undefined> {
      const row: HookRow | undefined = await trx(INCOMING_HOOKS_TABLE).where({ id }).first(COLUMNS)
      return row === undefined ? undefined : toHook(row)
    },

    /** The hook goes (its URL answers as one that never was); the shouts it posted stay. */
    async delete (id: number, trx: Transaction): Promise<IncomingHook | undefined> {
      const [row] = await trx(INCOMING_HOOKS_TABLE).where({ id }).delete().returning<HookRow[]>(COLUMNS)
      return row === undefined ? undefined : toHook(row)
    },

    /**
     * The hook whose URL holds `id` and `secret`, or undefined — for an id that is no
     * number, no hook, or a wrong secret alike; the secret's hash is compared in constant
     * time, with a stand-in when there is no hook, so the time taken tells nothing either.
     */
    async verify (id: string, secret: string): Promise<IncomingHook | undefined> {
      const number = /^[1-9][0-9]{0,9}$/.test(id) ? Number(id) : undefined
      const row: (HookRow & { secret_hash: Buffer }) | undefined = number === undefined || number > 2_147_483_647
        ? undefined
        : await db(INCOMING_HOOKS_TABLE).where({ id: number }).first([...COLUMNS, 'secret_hash'])
      const stored = row === undefined ? NO_HASH : Buffer.from(row.secret_hash)
      const matches = stored.length === NO_HASH.length && timingSafeEqual(hashOf(secret), stored)
      return row !== undefined && matches ? toHook(row) : undefined
    },

    /**
     * Counts a post through hook `id` when it may go: fewer than `perMinute` in the last
     * minute, and none within `gapMs` (the room's slow mode). One statement on the hook's
     * row (PostgreSQL checks the condition again on a row another process changed
     * meanwhile), so the limit holds across processes. 'gone' when the hook was removed.
     */
    async admit (id: number, perMinute: number, gapMs: number): Promise<Admission | 'gone'> {
      const at = now()
      const since = at - 60_000
      const { rows } = await db.raw<{ rows: Array<{ admitted: boolean, oldest: number | string | null, newest: number | string | null }> }>(`
        with counted as (
          update ?? set recent = array(select t from unnest(recent) as t where t > ? order by t) || ?::bigint
          where id = ? and cardinality(array(select t from unnest(recent) as t where t > ?)) < ?
            and (?::bigint = 0 or coalesce((select max(t) from unnest(recent) as t), 0) <= ?)
          returning id)
        select exists (select 1 from counted) as admitted,
          (select min(t) from unnest(h.recent) as t where t > ?) as oldest,
          (select max(t) from unnest(h.recent) as t) as newest
        from ?? as h where h.id = ?`,
      [INCOMING_HOOKS_TABLE, since, at, id, since, perMinute, gapMs, at - gapMs, since, INCOMING_HOOKS_TABLE, id])
      const row = rows[0]
      if (row === undefined) return 'gone'
      if (row.admitted) return { admitted: true }
      const full = row.oldest === null ? 0 : Number(row.oldest) + 60_000 - at
      const slow = row.newest === null ? 0 : Number(row.newest) + gapMs - at
      return { admitted: false, retryAfterMs: Math.max(full, slow, 1000) }
    }
  }
}

export type IncomingHooksRepository = ReturnType<typeof incomingHooksRepository>
