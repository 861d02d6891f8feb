import type { Database } from '../../sdk/index.js'

/**
 * A shout a moderator has edited is no longer its author's to edit: otherwise the
 * author could put back, within their edit window, the words the moderator took out.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.boolean('moderated').notNullable().defaultTo(false)
  })
}
