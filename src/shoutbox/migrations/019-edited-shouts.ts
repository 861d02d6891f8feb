import type { Database } from '../../sdk/index.js'

/** When a shout's text was last changed (by its author or a moderator): lists and events say `edited`. Null: never. */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.bigInteger('edited_at').nullable()
  })
}
