import type { Database } from '../../sdk/index.js'

export async function up (db: Database): Promise<void> {
  // The list reads `order by id desc limit n`: a backward scan of the primary key, never a sort.
  await db.schema.createTable('shoutbox_shouts', t => {
    t.specificType('id', 'bigint generated always as identity primary key')
    t.text('message').notNullable()
    t.text('username').notNullable()
    t.bigInteger('date').notNullable()
  })
}
