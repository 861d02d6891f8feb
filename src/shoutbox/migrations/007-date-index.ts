import type { Database } from '../../sdk/index.js'

/** Retention finds the shouts older than `keepDays` by date: a range of this index, not a scan of the table. */
export async function up (db: Database): Promise<void> {
  await db.raw('create index shoutbox_shouts_date on shoutbox_shouts (date)')
}
