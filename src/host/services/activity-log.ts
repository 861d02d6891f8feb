import type { Knex } from 'knex'
import type { ActivityLogEntryInput, ActivityRedactor } from '../../sdk/index.js'
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

export class ActivityLogStore {
  constructor (private readonly db: Knex, private readonly i18n: I18n) {}

  /** One entry, or several in one statement. */
  async write (owner: string, entries: ActivityLogEntryInput | readonly ActivityLogEntryInput[], db: Knex = this.db): Promise<void> {
    const list: readonly ActivityLogEntryInput[] = Array.isArray(entries) ? entries : [entries]
    if (list.length > 0) await db.raw('?', [this.insertion(owner, list)])
  }

  /** The INSERT of `entries` as a statement part (the SDK's `activityLog.insertion`); all dated now. */
  insertion (owner: string, entries: readonly ActivityLogEntryInput[]): Knex.Raw {
    const rows = entries.map(entry => ({ type: entry.type, userId: entry.user?.id ?? null, username: entry.user?.username ?? null, details: entry.details ?? {} }))
    return this.db.raw(`insert into ${ACTIVITY_LOGS_TABLE} (type, user_id, username, addon_id, details, created_at)
      select entry->>'type', (entry->>'userId')::integer, entry->>'username', ?::text, entry->'details', ?::bigint
      from jsonb_array_elements(?::jsonb) with ordinality as given(entry, position)
      order by position`, [owner === HOST ? null : owner, Date.now(), JSON.stringify(rows)])
  }

  /** One page of the feed, newest first, each entry with its sentence in `locale`. */
  /** A page of the feed; an addon's entries with the details its `readers` entry lets the reader see. */
  async page (page: number, locale: string, readers: ReadonlyMap<string, ActivityRedactor> = new Map()): Promise<{ logs: RenderedEntry[], page: number, totalPages: number }> {
    const [{ count } = { count: 0 }] = await this.db(ACTIVITY_LOGS_TABLE).count<Array<{ count: number | string }>>({ count: '*' })
    const totalPages = Math.max(1, Math.ceil(Number(count) / PAGE_SIZE))
    const rows: Row[] = await this.db(ACTIVITY_LOGS_TABLE)
      .orderBy('id', 'desc')
      .limit(PAGE_SIZE)
      .offset((page - 1) * PAGE_SIZE)
    const seen = (entry: ActivityLogEntry): ActivityLogEntry => {
      const reader = entry.addonId === null ? undefined : readers.get(entry.addonId)
      return reader === undefined ? entry : { ...entry, details: reader(entry) }
    }
    return { logs: rows.map(row => this.render(seen(toEntry(row)), locale)), page, totalPages }
  }

  /**
   * The sentence is `activity-logs.<TYPE>`; an entry whose details name a `variant` is told
   * with `activity-logs.<TYPE>.<variant>` when its owner has that string (one type, several
   * ways to say it: "for 2 hours", "until lifted").
   */
  render (entry: ActivityLogEntry, locale: string): RenderedEntry {
    const owner = entry.addonId ?? HOST
    const variant = entry.details.variant
    const specific = typeof variant === 'string' ? `activity-logs.${entry.type}.${variant}` : undefined
    const key = specific !== undefined && this.i18n.lookup(owner, locale, specific) !== undefined ? specific : `activity-logs.${entry.type}`
    const template = this.i18n.lookup(owner, locale, key)
    const text = template === undefined
      ? entry.type
      : this.i18n.t(owner, locale, key, { ...entry.details, username: entry.username ?? this.nobody(owner, locale), userId: entry.userId })
    return { ...entry, text }
  }

  /** Who did what nobody did (the owner acting by itself: an automatic silence): its `activity-logs.nobody`, else the host's. */
  private nobody (owner: string, locale: string): string {
    return this.i18n.lookup(owner, locale, 'activity-logs.nobody') ?? this.i18n.t(HOST, locale, 'activity-logs.nobody')
  }
}

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
