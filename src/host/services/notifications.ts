import { Type } from '@sinclair/typebox'
import { checker, type Database, type SqlPart, type Transaction } from '../../sdk/index.js'
import { jsonbNames, jsonbRenamed, jsonbWithout } from '../database/jsonb.js'
import { NOTIFICATIONS_TABLE } from '../database/tables.js'
import type { Cluster } from './cluster.js'

/** A notification as its user reads it. */
export interface Notification {
  readonly id: number
  readonly kind: string
  readonly addonId: string
  readonly data: Record<string, unknown>
  readonly createdAt: number
  readonly read: boolean
}

/**
 * Which notifications one reader may be shown now (every addon's filter, see
 * `AddonRegistry.visibleNotifications`): a condition over a row aliased `n`, and a test of one.
 */
export interface VisibleNotifications {
  readonly sql: SqlPart
  shows (notification: Pick<Notification, 'addonId' | 'kind' | 'data'>): boolean
}

/** What a user's notification streams hear: a new one, ones gone (what they were about was deleted), or the unread count after a read. */
export type NotificationEvent =
  | { readonly event: 'notification', readonly notification: Notification, readonly unread: number }
  | { readonly event: 'notifications-removed', readonly ids: readonly number[], readonly unread: number }
  | { readonly event: 'notifications-read', readonly unread: number }

/** The cluster topic every process hears notification events on (each delivers them to its own streams of that user). */
const TOPIC = 'host:notifications'

/** What TOPIC carries: a NotificationEvent and whose it is. */
const isEventOfUser = checker(Type.Object({
  userId: Type.Integer({ minimum: 1 }),
  event: Type.Union([
    Type.Object({
      event: Type.Literal('notification'),
      notification: Type.Object({
        id: Type.Integer(), kind: Type.String(), addonId: Type.String(), data: Type.Record(Type.String(), Type.Unknown()), createdAt: Type.Integer(), read: Type.Boolean()
      }),
      unread: Type.Integer()
    }),
    Type.Object({ event: Type.Literal('notifications-removed'), ids: Type.Array(Type.Integer()), unread: Type.Integer() }),
    Type.Object({ event: Type.Literal('notifications-read'), unread: Type.Integer() })
  ])
}))

/** The most a page of the list holds. */
export const MAX_PAGE = 50

interface Row {
  readonly id: number | string
  readonly user_id: number
  readonly addon_id: string
  readonly kind: string
  readonly data: Record<string, unknown>
  readonly created_at: number | string
  readonly read: boolean
}

const toNotification = (row: Row): Notification => ({
  id: Number(row.id), kind: row.kind, addonId: row.addon_id, data: row.data, createdAt: Number(row.created_at), read: row.read
})

/**
 * Notifications, for every addon: stored per user, read a page at a time, marked read,
 * removed with what they were about — and each change heard at once on the user's own
 * notification streams, on every process (the cluster carries `{userId, event}`; a user's
 * events never reach another user's stream).
 */
export class Notifications {
  private readonly listeners = new Map<number, Set<(event: NotificationEvent) => void>>()

  constructor (private readonly db: Database, private readonly cluster: Cluster) {
    cluster.subscribeJson(TOPIC, isEventOfUser, ({ userId, event }) => {
      for (const listener of this.listeners.get(userId) ?? []) listener(event)
    })
  }

  /** `addonId`'s notification of `kind` to user `userId`, about `key` (to remove it with what it is about); heard once `trx` commits. */
  async notify (addonId: string, userId: number, { kind, data, key }: { kind: string, data: Record<string, unknown>, key?: string }, trx?: Transaction): Promise<Notification> {
    const db = trx ?? this.db
    const [row] = await db(NOTIFICATIONS_TABLE).insert({ user_id: userId, addon_id: addonId, kind, data: JSON.stringify(data), key: key ?? null, created_at: Date.now() }).returning<Row[]>('*')
    const notification = toNotification(row!)
    await this.announce(userId, { event: 'notification', notification, unread: await this.unread(userId, undefined, db) }, trx)
    return notification
  }

  /** Removes `addonId`'s notifications about any of `keys`, telling each user whose they were. */
  async remove (addonId: string, keys: readonly string[], trx?: Transaction): Promise<void> {
    if (keys.length === 0) return
    const db = trx ?? this.db
    const rows: Array<{ id: number | string, user_id: number }> = await db(NOTIFICATIONS_TABLE).where({ addon_id: addonId }).whereIn('key', [...keys]).delete().returning(['id', 'user_id'])
    const byUser = new Map<number, number[]>()
    for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), Number(row.id)])
    for (const [userId, ids] of byUser) await this.announce(userId, { event: 'notifications-removed', ids, unread: await this.unread(userId, undefined, db) }, trx)
  }

  /**
   * `userId`'s notifications that `visible` shows, newest first, older than `before` (an
   * id) when given, and how many of those are unread: one statement, so both are of the
   * same moment.
   */
  async page (userId: number, visible: VisibleNotifications, before: number | undefined, limit: number): Promise<{ notifications: Notification[], unread: number }> {
    const { rows: [row] } = await this.db.raw<{ rows: Array<{ page: Row[], unread: number | string }> }>(`
      select coalesce((select json_agg(p order by p.id desc) from (
          select * from ${NOTIFICATIONS_TABLE} n where n.user_id = ? and n.id < ? and (?) order by n.id desc limit ?) as p), '[]') as page,
        (select count(*) from ${NOTIFICATIONS_TABLE} n where n.user_id = ? and not n.read and (?)) as unread`,
    [userId, before ?? Number.MAX_SAFE_INTEGER, visible.sql, Math.min(limit, MAX_PAGE), userId, visible.sql])
    return { notifications: (row?.page ?? []).map(toNotification), unread: Number(row?.unread ?? 0) }
  }

  /** How many of `userId`'s notifications are unread: of those `visible` shows, or of all (what the writer announces, each stream counting again for its reader). */
  async unread (userId: number, visible?: VisibleNotifications, trx: Database = this.db): Promise<number> {
    const query = trx(`${NOTIFICATIONS_TABLE} as n`).where({ 'n.user_id': userId, 'n.read': false })
    if (visible !== undefined) query.andWhere(visible.sql)
    const [row] = await query.count<Array<{ count: number | string }>>({ count: '*' })
    return Number(row?.count ?? 0)
  }

  /** Marks `ids` (of `userId`'s; others' are passed over) or all of them read; the unread count after, of those `visible` shows. */
  async markRead (userId: number, visible: VisibleNotifications, which: readonly number[] | 'all'): Promise<number> {
    const query = this.db(NOTIFICATIONS_TABLE).where({ user_id: userId, read: false })
    if (which !== 'all') query.whereIn('id', [...which])
    const changed = await query.update({ read: true }).returning('id')
    if (changed.length > 0) await this.announce(userId, { event: 'notifications-read', unread: await this.unread(userId) })
    return await this.unread(userId, visible)
  }

  /**
   * Rewrites `addonId`'s notifications whose data field `about.field` is one of
   * `about.values` (inside `trx`): each field of `fields` set, or taken out where its value
   * is undefined — what a notification copied of an edited text, or of an erased author,
   * follows the original. Not announced: the list is read anew.
   */
  async rewrite (addonId: string, about: { readonly field: string, readonly values: ReadonlyArray<string | number> }, fields: Readonly<Record<string, unknown>>, trx: Transaction): Promise<void> {
    if (about.values.length === 0) return
    const removed = Object.keys(fields).filter(key => fields[key] === undefined)
    const set = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
    await trx(NOTIFICATIONS_TABLE).where({ addon_id: addonId }).whereRaw('(data->>?) = any(?::text[])', [about.field, about.values.map(String)])
      .update({ data: trx.raw('? || ?::jsonb', [jsonbWithout(trx, 'data', removed), JSON.stringify(set)]) })
  }

  /**
   * Replaces the string `name` wherever it stands whole in a notification's data (inside
   * the transaction that erases its person): who mentioned, who reported.
   */
  async forgetName (name: string, replacement: string, trx: Transaction): Promise<void> {
    await trx(NOTIFICATIONS_TABLE).where(jsonbNames(trx, 'data', name)).update({ data: jsonbRenamed(trx, trx.raw('data'), name, replacement) })
  }

  /** Runs `listener` for each of `userId`'s notification events, from any process, until the returned function is called. */
  listen (userId: number, listener: (event: NotificationEvent) => void): () => void {
    const set = this.listeners.get(userId) ?? new Set()
    set.add(listener)
    this.listeners.set(userId, set)
    return () => {
      set.delete(listener)
      if (set.size === 0) this.listeners.delete(userId)
    }
  }

  private async announce (userId: number, event: NotificationEvent, trx?: Transaction): Promise<void> {
    await this.cluster.notifyJson(TOPIC, { userId, event }, trx)
  }
}
