import type { Database } from '../../sdk/index.js'

/** Each member's recent changes of their ignore list, for their limit (a minute's worth), beside their posts' and reactions'. */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_flood_control', t => {
    t.jsonb('ignores_recent').notNullable().defaultTo('[]')
  })
}
