import type { Database } from '../../sdk/index.js'

/**
 * Members post, edit and delete their own shouts. "Own" is decided by the author's user
 * id, not the username shown (a name can be reused once its account is gone); shouts
 * stored before this have none, and are nobody's to change but the staff's.
 *
 * `shoutbox_flood_control` holds each member's recent posting times for the flood rules;
 * a member's row is locked while a post is checked, so posts sent at once to several
 * host processes are counted one after the other.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.integer('author_id')
  })
  await db.schema.createTable('shoutbox_flood_control', t => {
    t.integer('author_id').primary()
    /** When the posts of the last minute were accepted (ms since the epoch), oldest first. */
    t.jsonb('recent').notNullable().defaultTo('[]')
    t.bigInteger('last_posted_at')
    /** SHA-256 of the last post's text (not the text: a deleted shout leaves no copy here). */
    t.text('last_digest')
  })
}
