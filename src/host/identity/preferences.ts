import type { Database } from '../../sdk/index.js'
import { USER_PREFERENCES_TABLE } from '../database/tables.js'

export const THEMES = ['system', 'light', 'dark'] as const
export type Theme = typeof THEMES[number]

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
}

export const DEFAULT_PREFERENCES: Preferences = { sound: false, desktopNotifications: false, theme: 'system', locale: null }

interface PreferencesRow { sound: boolean, desktop_notifications: boolean, theme: Theme, locale: string | null }

/** `user_preferences`: one row per member who changed something. */
export function preferencesRepository (db: Database) {
  return {
    async of (userId: number): Promise<Preferences> {
      const row: PreferencesRow | undefined = await db(USER_PREFERENCES_TABLE).where({ user_id: userId }).first('sound', 'desktop_notifications', 'theme', 'locale')
      return row === undefined ? DEFAULT_PREFERENCES : fromRow(row)
    },

    /** Changes the fields given and answers the whole set as it is now. */
    async change (userId: number, changes: Partial<Preferences>): Promise<Preferences> {
      const columns: Partial<PreferencesRow> = {
        ...(changes.sound === undefined ? {} : { sound: changes.sound }),
        ...(changes.desktopNotifications === undefined ? {} : { desktop_notifications: changes.desktopNotifications }),
        ...(changes.theme === undefined ? {} : { theme: changes.theme }),
        ...(changes.locale === undefined ? {} : { locale: changes.locale })
      }
      const [row]: PreferencesRow[] = await db(USER_PREFERENCES_TABLE)
        .insert({ user_id: userId, ...toRow(DEFAULT_PREFERENCES), ...columns })
        .onConflict('user_id').merge(Object.keys(columns).length === 0 ? ['user_id'] : Object.keys(columns))
        .returning(['sound', 'desktop_notifications', 'theme', 'locale'])
      return fromRow(row!)
    }
  }
}

function toRow (preferences: Preferences): PreferencesRow {
  return { sound: preferences.sound, desktop_notifications: preferences.desktopNotifications, theme: preferences.theme, locale: preferences.locale }
}

function fromRow (row: PreferencesRow): Preferences {
  return { sound: row.sound, desktopNotifications: row.desktop_notifications, theme: row.theme, locale: row.locale }
}
