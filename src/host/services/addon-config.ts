import type { ConfigValue, Database } from '../../sdk/index.js'
import { ADDON_CONFIG_TABLE } from '../database/tables.js'

/** An addon's config: defaults from its manifest, values in the database (shared by all processes). */
export function addonConfigRepository (db: Database) {
  return {
    async all (addonId: string, defaults: Readonly<Record<string, ConfigValue>>, trx: Database = db): Promise<Record<string, ConfigValue>> {
      const rows: Array<{ key: string, value: ConfigValue }> = await trx(ADDON_CONFIG_TABLE).where({ addon_id: addonId }).select('key', 'value')
      const values: Record<string, ConfigValue> = { ...defaults }
      for (const row of rows) if (Object.hasOwn(defaults, row.key)) values[row.key] = row.value
      return values
    },

    async set (addonId: string, defaults: Readonly<Record<string, ConfigValue>>, values: Record<string, ConfigValue>, trx: Database = db): Promise<void> {
      const rows = Object.entries(values).map(([key, value]) => {
        if (!Object.hasOwn(defaults, key)) throw new Error(`addon ${addonId} has no config key "${key}"`)
        return { addon_id: addonId, key, value: JSON.stringify(value) }
      })
      if (rows.length === 0) return
      await trx(ADDON_CONFIG_TABLE).insert(rows).onConflict(['addon_id', 'key']).merge(['value'])
    }
  }
}

export type AddonConfigRepository = ReturnType<typeof addonConfigRepository>
