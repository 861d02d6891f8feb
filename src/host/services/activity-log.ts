import type { ActivityLogEntryInput, ActivityRedactor, Database, SqlPart, Transaction } from '../../sdk/index.js'
import { jsonbNames, jsonbRenamed, jsonbWithout } from '../database/jsonb.js'
import { ACTIVITY_LOGS_TABLE } from '../database/tables.js'
import type { I18n } from './i18n.js'

/** The owner name of the host's own entries and strings. */
export const HOST = 'host'

const PAGE_SIZE = 20

export interface ActivityLogEntry {
  readonly id: number
  readonly type: string
  readonly userId: number | null
  readonly username: string | null
  readonly addonId: string | null
  readonly details: Record<string, unknown>
  readonly createdAt: number
}

export interface RenderedEntry extends ActivityLogEntry {
  readonly text: string
}

interface Row {
  id: number
  type: string
  user_id: number | null
  username: string | null
  addon_id: string | null
  details: Record<string, unknown>
  created_at: number
}

/** The activity feed: entries written by the host and the addons, read by the panel in the reader's language. */
export function activityLogRepository (db: Database, i18n: I18n) {
  /** The INSERT of `entries` as a statement part (the SDK's `activityLog.insertion`); all dated now. */
  const insertion = (owner: string, entries: readonly ActivityLogEntryInput[]): SqlPart => {
    const rows = entries.map(entry => ({ type: entry.type, userId: entry.user?.id ?? null, username: entry.user?.username ?? null, details: entry.details ?? {} }))
    return db.raw(`insert into ${ACTIVITY_LOGS_TABLE} (type, user_id, username, addon_id, details, created_at)
      select entry->>'type', (entry->>'userId')::integer, entry->>'username', ?::text, entry->'details', ?::bigint
      from jsonb_array_elements(?::jsonb) with ordinality as given(entry, position)
      order by position`, [owner === HOST ? null : owner, Date.now(), JSON.stringify(rows)])
  }

  /** Who did what nobody did (the owner acting by itself: an automatic silence): its `activity-logs.nobody`, else the host's. */
  const nobody = (owner: string, locale: string): string =>
    i18n.lookup(owner, locale, 'activity-logs.nobody') ?? i18n.t(HOST, locale, 'activity-logs.nobody')

  /**
   * The sentence is `activity-logs.<TYPE>`; an entry whose details name a `variant` is told
   * with `activity-logs.<TYPE>.<variant>` when its owner has that string (one type, several
   * ways to say it: "for 2 hours", "until lifted").
   */
  const render = (entry: ActivityLogEntry, locale: string): RenderedEntry => {
    const owner = entry.addonId ?? HOST
    const variant = entry.details.variant
    const specific = typeof variant === 'string' ? `activity-logs.${entry.type}.${variant}` : undefined
    const key = specific !== undefined && i18n.lookup(owner, locale, specific) !== undefined ? specific : `activity-logs.${entry.type}`
    const template = i18n.lookup(owner, locale, key)
    const text = template === undefined
      ? entry.type
      : i18n.t(owner, locale, key, { ...entry.details, username: entry.username ?? nobody(owner, locale), userId: entry.userId })
    return { ...entry, text }
  }

  return {
    insertion,

    /** One entry, or several in one statement. */
    async write (owner: string, entries: ActivityLogEntryInput | readonly ActivityLogEntryInput[], trx: Database = db): Promise<void> {
      const list: readonly ActivityLogEntryInput[] = Array.isArray(entries) ? entries : [entries]
      if (list.length > 0) await trx.raw('?', [insertion(owner, list)])
    },

    /**
     * Takes `fields` out of `owner`'s entries whose detail `key` is one of `values` (the SDK's
     * `activityLog.forget`); an entry that lost one is told with its sentence's `erased` variant.
     */
    async forget (owner: string, about: { readonly key: string, readonly values: ReadonlyArray<string | number> }, fields: readonly string[], trx: Transaction): Promise<void> {
      if (about.values.length === 0 || fields.length === 0) return
      await trx(ACTIVITY_LOGS_TABLE).where({ addon_id: owner }).whereRaw('(details->>?) = any(?::text[])', [about.key, about.values.map(String)])
        .whereRaw('details \\?| ?::text[]', [[...fields]])
        .update({ details: trx.raw(`? || '{"variant":"erased"}'::jsonb`, [jsonbWithout(trx, 'details', fields)]) })
    },

    /**
     * The entries of an erased person (inside the transaction that erases them): those they
     * wrote keep their place under `replacement` with no account, those that name them
     * name `replacement` instead, and both lose the text they held (`textFields`).
     */
    async forgetPerson (userId: number, name: string, replacement: string, textFields: readonly string[], trx: Transaction): Promise<void> {
      const touched = trx.raw(`user_id = ? or username = ? or ? or (details->>'targetUserId') = ? or (details->>'userId') = ?`,
        [userId, name, jsonbNames(trx, 'details', name), String(userId), String(userId)])
      // The sentences say the text was erased: the `erased` variant where a text goes, and no `-reason` variant without its reason.
      await trx(ACTIVITY_LOGS_TABLE).where(touched).whereRaw("details \\?| array['message', 'previousMessage']").update({ details: trx.raw(`details || '{"variant":"erased"}'::jsonb`) })
      await trx(ACTIVITY_LOGS_TABLE).where(touched).whereRaw("details->>'variant' like '%-reason'")
        .update({ details: trx.raw(`jsonb_set(details, '{variant}', to_jsonb(regexp_replace(details->>'variant', '-reason$', '')))`) })
      await trx.raw(`update ?? set
          user_id = case when user_id = ? then null else user_id end,
          username = case when user_id = ? or username = ? then ? else username end,
          details = ?
        where ?`,
      [ACTIVITY_LOGS_TABLE, userId, userId, name, replacement, jsonbRenamed(trx, jsonbWithout(trx, 'details', textFields), name, replacement), touched])
    },

    /** A page of the feed, newest first, each entry with its sentence in `locale`; an addon's entries with the details its `readers` entry lets the reader see. */
    async page (page: number, locale: string, readers: ReadonlyMap<string, ActivityRedactor> = new Map()): Promise<{ logs: RenderedEntry[], page: number, totalPages: number }> {
      const [{ count } = { count: 0 }] = await db(ACTIVITY_LOGS_TABLE).count<Array<{ count: number | string }>>({ count: '*' })
      const totalPages = Math.max(1, Math.ceil(Number(count) / PAGE_SIZE))
      const rows: Row[] = await db(ACTIVITY_LOGS_TABLE)
        .orderBy('id', 'desc')
        .limit(PAGE_SIZE)
        .offset((page - 1) * PAGE_SIZE)
      const seen = (entry: ActivityLogEntry): ActivityLogEntry => {
        const reader = entry.addonId === null ? undefined : readers.get(entry.addonId)
        return reader === undefined ? entry : { ...entry, details: reader(entry) }
      }
      return { logs: rows.map(row => render(seen(toEntry(row)), locale)), page, totalPages }
    }
  }
}

export type ActivityLogRepository = ReturnType<typeof activityLogRepository>

function toEntry (row: Row): ActivityLogEntry {
  return {
    id: row.id,
    type: row.type,
    userId: row.user_id,
    username: row.username,
    addonId: row.addon_id,
    details: row.details,
    createdAt: row.created_at
  }
}
