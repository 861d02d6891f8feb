import type { Database } from '../../sdk/index.js'

/**
 * Pinned shouts, one row each; `id` orders them (newest pin first). Deleting a shout
 * unpins it.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_pins', t => {
    t.specificType('id', 'bigint generated always as identity primary key')
    t.bigInteger('shout_id').notNullable().unique().references('id').inTable('shoutbox_shouts').onDelete('CASCADE')
    t.bigInteger('pinned_at').notNullable()
  })
}
