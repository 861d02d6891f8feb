import type { Database } from '../../sdk/index.js'

/**
 * Watched words: patterns staff keep out of members' shouts, each with what happens to a
 * shout that has one (`block`, `censor`, `hold`). `skeleton` is the pattern as it is
 * matched (see watched-words.ts), unique: `FREE` and `free` are one word.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_watched_words', t => {
    t.increments('id')
    t.text('pattern').notNullable()
    t.text('skeleton').notNullable().unique()
    t.text('action').notNullable()
    t.integer('created_by').nullable()
    t.bigInteger('created_at').notNullable()
  })
  await db.raw("alter table shoutbox_watched_words add constraint shoutbox_watched_words_action check (action in ('block', 'censor', 'hold'))")
}
