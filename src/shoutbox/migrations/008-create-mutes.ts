import type { Database } from '../../sdk/index.js'

/**
 * Moderators silence a member in the shoutbox alone, for a while or until lifted. One row
 * per muted member (a new mute replaces the old); every post and edit reads it, so a mute
 * made on one host process refuses the next post on every other at once. A row whose
 * `until` has passed refuses nothing: the mute has expired by itself.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_mutes', t => {
    t.integer('user_id').primary()
    /** The member's name when muted, for the Mutes page. */
    t.text('username').notNullable()
    /** When it ends (ms since the epoch); null: until a moderator lifts it. */
    t.bigInteger('until')
    t.text('reason')
    t.integer('by_id').notNullable()
    t.text('by_username').notNullable()
    t.bigInteger('created_at').notNullable()
  })
}
