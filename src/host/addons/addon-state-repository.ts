import type { Database } from '../../sdk/index.js'
import { ADDON_STATE_TABLE } from '../database/tables.js'

/** `addon_state`: which addons the operator turned off (an addon with no row is on). */
export function addonStateRepository (db: Database) {
  return {
    /** Enabled or not, by addon id; only addons the operator ever switched have an entry. */
    async all (): Promise<Map<string, boolean>> {
      const rows: Array<{ addon_id: string, enabled: boolean }> = await db(ADDON_STATE_TABLE).select('addon_id', 'enabled')
      return new Map(rows.map(row => [row.addon_id, row.enabled]))
    },

    async set (addonId: string, enabled: boolean, trx: Database = db): Promise<void> {
      await trx(ADDON_STATE_TABLE).insert({ addon_id: addonId, enabled }).onConflict('addon_id').merge()
    }
  }
}

