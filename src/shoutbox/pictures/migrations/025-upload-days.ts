import type { Database } from '../../../sdk/index.js'

/** How many pictures each member uploaded on each UTC day (at most 20 a day); rows older than a day are of no use. */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_upload_days', t => {
    t.integer('user_id').notNullable()
    t.integer('day').notNullable()
    t.integer('count').notNullable()
    t.primary(['user_id', 'day'])
  })
}
