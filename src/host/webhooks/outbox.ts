import { randomBytes } from 'node:crypto'
import type { Database, SqlPart, Transaction } from '../../sdk/index.js'
import { jsonbNames, jsonbRenamed, jsonbWithout } from '../database/jsonb.js'
import { WEBHOOKS_TABLE, WEBHOOK_DELIVERIES_TABLE } from '../database/tables.js'

/** The host's own webhook events; each addon adds those it declares (`AddonDefinition.webhookEvents`). */
export const HOST_WEBHOOK_EVENTS = ['member.signed_up'] as const

/** The event a `POST /api/panel/webhooks/:id/ping` sends: to that hook alone, whatever it subscribes to. */
export const PING = 'ping'

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/**
 * What a hook's deliveries look like: Shoutbox's own signed envelope, or the body a Slack
 * or Discord channel's incoming webhook takes (see `formats.ts`).
 */
export const WEBHOOK_FORMATS = ['shoutbox', 'slack', 'discord'] as const
export type WebhookFormat = typeof WEBHOOK_FORMATS[number]

export interface Webhook {
  readonly id: number
  readonly url: string
  readonly events: readonly string[]
  readonly active: boolean
  readonly format: WebhookFormat
  /** Only events about this room (its slug, `data.room`); null: every event. */
  readonly room: string | null
  readonly createdAt: number
}

export interface Delivery {
  readonly id: string
  readonly event: string
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly responseCode: number | null
  readonly nextAttemptAt: number | null
  readonly createdAt: number
}

/** One delivery's content: what it tells (`data`) and what it is about (`subject`, e.g. `shout:12`). */
export interface OutboxItem {
  readonly data: Record<string, unknown>
  readonly subject?: string
}

/** Announced when hooks change, so every process's sender knows whether there is any to send to. */
export const WEBHOOKS_CHANGED = 'host:webhooks-changed'

interface HookRow { id: number, url: string, events: string[], active: boolean, format: WebhookFormat, room: string | null, created_at: number | string }
interface DeliveryRow { id: string, event: string, status: DeliveryStatus, attempts: number, response_code: number | null, next_attempt_at: number | string, created_at: number | string }

const toHook = (row: HookRow): Webhook => ({ id: row.id, url: row.url, events: row.events, active: row.active, format: row.format, room: row.room, createdAt: Number(row.created_at) })
const HOOK_COLUMNS = ['id', 'url', 'events', 'active', 'format', 'room', 'created_at']
const toDelivery = (row: DeliveryRow): Delivery => ({
  id: row.id,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  responseCode: row.response_code,
  nextAttemptAt: row.status === 'pending' ? Number(row.next_attempt_at) : null,
  createdAt: Number(row.created_at)
})

/**
 * The webhooks' outbox: deliveries are written in the transaction of the change they tell
 * of — by `enqueue`, or inside the change's own statement by `insertion` — one row for
 * each active hook subscribed to the event, so a change that committed has its
 * deliveries, whatever happens to the process next. The sender (`sender.ts`) reads them.
 */
export function webhookOutboxRepository (db: Database, now: () => number = Date.now) {
  /**
   * The INSERT of `event`'s deliveries as a statement part (a CTE of the change's own
   * statement): `rows` is a SELECT of `data` (jsonb) and `subject` (text) columns, which
   * may read the statement's other CTEs. A row whose `data` names `via` came in through
   * a bridge (an incoming hook): it goes to no chat-shaped hook (Slack, Discord), so two
   * bridged boards never send a shout back where it came from. A hook that names a room
   * gets only the rows whose `data.room` is that room.
   */
  const insertion = (event: string, rows: SqlPart): SqlPart => {
    const at = now()
    return db.raw(`insert into ${WEBHOOK_DELIVERIES_TABLE} (hook_id, event, data, subject, next_attempt_at, created_at)
      select h.id, ?::text, d.data, d.subject, ?::bigint, ?::bigint from (?) as d cross join ${WEBHOOKS_TABLE} h
      where h.active and h.events @> ?::jsonb and (h.format = 'shoutbox' or d.data->'via' is null or d.data->'via' = 'null'::jsonb)
        and (h.room is null or d.data->>'room' = h.room)`, [event, at, at, rows, JSON.stringify([event])])
  }

  return {
    insertion,

    /** Writes `event`'s deliveries of `items` inside `trx`. */
    async enqueue (event: string, items: readonly OutboxItem[], trx: Transaction): Promise<void> {
      if (items.length === 0) return
      const rows = items.map(item => ({ data: item.data, subject: item.subject ?? null }))
      await trx.raw('?', [insertion(event, trx.raw(
        "select item->'data' as data, item->>'subject' as subject from jsonb_array_elements(?::jsonb) as given(item)", [JSON.stringify(rows)]))])
    },

    /**
     * Takes `fields` out of the pending deliveries about `subject` (inside the transaction
     * that deletes it): a deleted shout's text is never sent after the delete.
     */
    async redact (subject: string, fields: readonly string[], trx: Transaction): Promise<void> {
      await trx(WEBHOOK_DELIVERIES_TABLE).where({ subject, status: 'pending' })
        .update({ data: trx.raw("jsonb_set(?, '{deleted}', 'true')", [jsonbWithout(trx, 'data', fields)]) })
    },

    /**
     * Sets `fields` in the pending deliveries about `subject` that carry them (inside the
     * transaction of an edit): a delivery not yet sent carries the text as it is now.
     */
    async rewrite (subject: string, fields: Readonly<Record<string, unknown>>, trx: Transaction): Promise<void> {
      for (const [field, value] of Object.entries(fields)) {
        await trx(WEBHOOK_DELIVERIES_TABLE).where({ subject, status: 'pending' }).whereRaw('data \\? ?', [field])
          .update({ data: trx.raw('jsonb_set(data, array[?::text], ?::jsonb)', [field, JSON.stringify(value)]) })
      }
    },

    /**
     * Replaces the string `name` wherever it stands whole in a pending delivery (inside the
     * transaction that erases its person): a username, a reporter, a moderator; and takes
     * `textFields` out of those deliveries (a mute's reason about them, say).
     */
    async forgetName (name: string, replacement: string, textFields: readonly string[], trx: Transaction): Promise<void> {
      await trx(WEBHOOK_DELIVERIES_TABLE).where({ status: 'pending' }).andWhere(jsonbNames(trx, 'data', name))
        .update({ data: jsonbRenamed(trx, jsonbWithout(trx, 'data', textFields), name, replacement) })
    }
  }
}

export type WebhookOutboxRepository = ReturnType<typeof webhookOutboxRepository>

/** The hooks and their deliveries, as the panel manages and reads them. */
export function webhooksRepository (db: Database, now: () => number = Date.now) {
  return {
    async list (): Promise<Webhook[]> {
      return (await db(WEBHOOKS_TABLE).orderBy('id') as HookRow[]).map(toHook)
    },

    async find (id: number, trx: Database = db): Promise<Webhook | undefined> {
      const row: HookRow | undefined = await trx(WEBHOOKS_TABLE).where({ id }).first()
      return row === undefined ? undefined : toHook(row)
    },

    async count (trx: Transaction): Promise<number> {
      const [row] = await trx(WEBHOOKS_TABLE).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    /** A new hook and its signing secret (kept to sign with, shown once). */
    async create (hook: { url: string, events: readonly string[], active: boolean, format?: WebhookFormat, room?: string | null }, trx: Transaction): Promise<{ webhook: Webhook, secret: string }> {
      const secret = `whsec_${randomBytes(32).toString('base64url')}`
      const [row] = await trx(WEBHOOKS_TABLE).insert({ url: hook.url, events: JSON.stringify([...new Set(hook.events)]), active: hook.active, format: hook.format ?? 'shoutbox', room: hook.room ?? null, secret, created_at: now() })
        .returning<HookRow[]>(HOOK_COLUMNS)
      return { webhook: toHook(row!), secret }
    },

    async update (id: number, change: { url?: string, events?: readonly string[], active?: boolean, format?: WebhookFormat, room?: string | null }, trx: Transaction): Promise<Webhook | undefined> {
      const columns = {
        ...(change.room === undefined ? {} : { room: change.room }),
        ...(change.format === undefined ? {} : { format: change.format }),
        ...(change.url === undefined ? {} : { url: change.url }),
        ...(change.events === undefined ? {} : { events: JSON.stringify([...new Set(change.events)]) }),
        ...(change.active === undefined ? {} : { active: change.active })
      }
      const [row] = await trx(WEBHOOKS_TABLE).where({ id }).update(columns).returning<HookRow[]>(HOOK_COLUMNS)
      return row === undefined ? undefined : toHook(row)
    },

    /** The hook and its deliveries go. */
    async delete (id: number, trx: Transaction): Promise<Webhook | undefined> {
      const [row] = await trx(WEBHOOKS_TABLE).where({ id }).delete().returning<HookRow[]>(HOOK_COLUMNS)
      return row === undefined ? undefined : toHook(row)
    },

    /** The hook's last `limit` deliveries, the newest first. */
    async deliveries (hookId: number, limit = 100): Promise<Delivery[]> {
      const rows: DeliveryRow[] = await db(WEBHOOK_DELIVERIES_TABLE).where({ hook_id: hookId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit)
      return rows.map(toDelivery)
    },

    /** A `ping` to the hook alone, due now. */
    async ping (hookId: number, trx: Transaction): Promise<Delivery> {
      const at = now()
      const [row] = await trx(WEBHOOK_DELIVERIES_TABLE)
        .insert({ hook_id: hookId, event: PING, data: JSON.stringify({ hookId }), next_attempt_at: at, created_at: at })
        .returning<DeliveryRow[]>('*')
      return toDelivery(row!)
    },

    /** The delivery queued again, due now, its tries counted afresh; undefined when the hook has no such delivery. */
    async redeliver (hookId: number, deliveryId: string, trx: Transaction): Promise<Delivery | undefined> {
      const [row] = await trx(WEBHOOK_DELIVERIES_TABLE).where({ id: deliveryId, hook_id: hookId })
        .update({ status: 'pending', attempts: 0, response_code: null, next_attempt_at: now(), locked_until: null })
        .returning<DeliveryRow[]>('*')
      return row === undefined ? undefined : toDelivery(row)
    }
  }
}

export type WebhooksRepository = ReturnType<typeof webhooksRepository>
