import type { Database } from '../../sdk/index.js'
import { NOTIFICATIONS_TABLE, USER_PREFERENCES_TABLE } from '../database/tables.js'

export const THEMES = ['system', 'light', 'dark'] as const
export type Theme = typeof THEMES[number]
export const MENTION_MAILS = ['off', 'batched', 'daily'] as const
export type MentionMails = typeof MENTION_MAILS[number]

/** What a member chose for themselves; every field has a default, so an account without a row has them all. */
export interface Preferences {
  /** A short sound when a notification arrives on an open page. */
  readonly sound: boolean
  /** A desktop notification (the browser's, once the member allows it) when one arrives. */
  readonly desktopNotifications: boolean
  /** The site's look: the system's (`prefers-color-scheme`), or light or dark whatever it says. */
  readonly theme: Theme
  /** The language pages, mails and the activity feed are drawn in; null: the browser's, then the site's. */
  readonly locale: string | null
  /** Mentions still unread mailed: never, in one mail after 15 minutes, or in a daily digest. */
  readonly emailMentions: MentionMails
}

export const DEFAULT_PREFERENCES: Preferences = { sound: false, desktopNotifications: false, theme: 'system', locale: null, emailMentions: 'off' }

interface PreferencesRow { sound: boolean, desktop_notifications: boolean, theme: Theme, locale: string | null, email_mentions: MentionMails }

const COLUMNS = ['sound', 'desktop_notifications', 'theme', 'locale', 'email_mentions']

/** `user_preferences`: one row per member who changed something. */
export function preferencesRepository (db: Database) {
  return {
    async of (userId: number): Promise<Preferences> {
      const row: PreferencesRow | undefined = await db(USER_PREFERENCES_TABLE).where({ user_id: userId }).first(...COLUMNS)
      return row === undefined ? DEFAULT_PREFERENCES : fromRow(row)
    },

    /**
     * Changes the fields given and answers the whole set as it is now; `locale` is the
     * language mention mails are written in. Mention mails turned on start from now: the
     * mentions already there are not mailed, and the first digest is a day away.
     */
    async change (userId: number, changes: Partial<Preferences>, locale?: string): Promise<Preferences> {
      const columns: Record<string, unknown> = {
        ...(changes.sound === undefined ? {} : { sound: changes.sound }),
        ...(changes.desktopNotifications === undefined ? {} : { desktop_notifications: changes.desktopNotifications }),
        ...(changes.theme === undefined ? {} : { theme: changes.theme }),
        ...(changes.locale === undefined ? {} : { locale: changes.locale }),
        ...(changes.emailMentions === undefined ? {} : { email_mentions: changes.emailMentions, mail_locale: locale ?? null })
      }
      const turnedOn = changes.emailMentions !== undefined && changes.emailMentions !== 'off'
      const newest = `coalesce((select max(id) from ${NOTIFICATIONS_TABLE}), 0)`
      const now = Date.now()
      const starting = turnedOn ? { mentions_mailed_through: db.raw(newest), mentions_mailed_at: now } : {}
      const restarting = turnedOn
        ? {
            mentions_mailed_through: db.raw(`case when ${USER_PREFERENCES_TABLE}.email_mentions = 'off' then ${newest} else ${USER_PREFERENCES_TABLE}.mentions_mailed_through end`),
            mentions_mailed_at: db.raw(`case when ${USER_PREFERENCES_TABLE}.email_mentions = 'off' then ? else ${USER_PREFERENCES_TABLE}.mentions_mailed_at end`, [now])
          }
        : {}
      const [row]: PreferencesRow[] = await db(USER_PREFERENCES_TABLE)
        .insert({ user_id: userId, ...toRow(DEFAULT_PREFERENCES), ...columns, ...starting })
        .onConflict('user_id').merge(Object.keys(columns).length === 0 ? ['user_id'] : { ...columns, ...restarting })
        .returning(COLUMNS)
      return fromRow(row!)
    },

    /** Mention mails stop (a mail's one-click unsubscribe): true when they were on. */
    async stopMentionMails (userId: number): Promise<boolean> {
      return (await db(USER_PREFERENCES_TABLE).where({ user_id: userId }).whereNot({ email_mentions: 'off' }).update({ email_mentions: 'off' })) > 0
    }
  }
}

function toRow (preferences: Preferences): PreferencesRow {
  return { sound: preferences.sound, desktop_notifications: preferences.desktopNotifications, theme: preferences.theme, locale: preferences.locale, email_mentions: preferences.emailMentions }
}

function fromRow (row: PreferencesRow): Preferences {
  return { sound: row.sound, desktopNotifications: row.desktop_notifications, theme: row.theme, locale: row.locale, emailMentions: row.email_mentions }
}
