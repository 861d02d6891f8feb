import type { Database } from '../../sdk/index.js'

/**
 * The live stream's history: one row per shout created or deleted, written in the same
 * transaction. Its ids are the stream's event ids, the same on every host process, so a
 * client that reconnects anywhere resumes with `Last-Event-ID`.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_events', t => {
    t.specificType('id', 'bigint generated always as identity primary key')
    t.text('kind').notNullable()
    t.jsonb('shout').notNullable()
    t.bigInteger('created_at').notNullable()
  })
}
