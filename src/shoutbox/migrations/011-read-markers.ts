import type { Database } from '../../sdk/index.js'

/**
 * Read markers: how far each member has read each room (the newest shout id they have
 * seen), for the unread counts of the rooms list and the widget's "new since your last
 * visit" line. One row per member and room, written only forward.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_read_markers', t => {
    t.integer('user_id').notNullable()
    t.integer('room_id').notNullable().references('id').inTable('shoutbox_rooms')
    t.bigInteger('last_read_id').notNullable()
    t.bigInteger('updated_at').notNullable()
    t.primary(['user_id', 'room_id'])
  })
}
