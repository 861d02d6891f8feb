import type { Database } from '../../../sdk/index.js'

/**
 * Who is here: each host process writes, every few seconds, who has each room open on it
 * (`shoutbox_presence`: the members shown by name, with since when, and how many others);
 * every process reads the rows still fresh, so presence is the same on all of them. A
 * process that stops writing drops out once its rows are stale.
 *
 * `shoutbox_presence_hidden`: the members who turned `showPresence` off (counted, not named).
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_presence', t => {
    t.text('process').notNullable()
    t.integer('room_id').notNullable()
    t.jsonb('members').notNullable().defaultTo('[]')
    t.integer('guests').notNullable().defaultTo(0)
    t.bigInteger('seen_at').notNullable()
    t.primary(['process', 'room_id'])
  })
  await db.schema.createTable('shoutbox_presence_hidden', t => {
    t.integer('user_id').primary()
    t.bigInteger('created_at').notNullable()
  })
}
