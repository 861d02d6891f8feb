import type { Database } from '../../sdk/index.js'

/**
 * Whether a shout was posted by a bot account (through an API token): its answers and
 * stream events carry `bot: true`, and the widget shows a badge. Written with the shout:
 * an account is a bot from its creation on.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.boolean('bot').notNullable().defaultTo(false)
  })
}
