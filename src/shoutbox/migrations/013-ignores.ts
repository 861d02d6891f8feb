import type { Database } from '../../sdk/index.js'

/**
 * Ignore lists: whose shouts each member would rather not see (and whose mentions not
 * hear). One row per member and ignored account; the shoutbox keeps them, as it is the
 * shoutbox that hides what they say.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_ignores', t => {
    t.integer('user_id').notNullable()
    t.integer('ignored_id').notNullable()
    t.bigInteger('created_at').notNullable()
    t.primary(['user_id', 'ignored_id'])
  })
}
