import type { Database } from '../../sdk/index.js'

/**
 * Rooms: several conversations on one board. The default room `general` (id 1) is made
 * here, and every shout stored before rooms existed belongs to it (the column's default:
 * no shout is rewritten, however large the board); the events in the stream's history
 * (at most 10,000) are rewritten to name it. Pins and settings stay as they were: a pin
 * belongs to its shout, and so to its room. Flood control learns when each member last
 * posted in each room, for the rooms' slow mode.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_rooms', t => {
    t.increments('id')
    t.text('slug').notNullable().unique()
    t.text('name').notNullable()
    t.text('description').notNullable().defaultTo('')
    /** 'everyone', 'signed-in' or a permission node. */
    t.text('read_access').notNullable().defaultTo('everyone')
    /** A permission node. */
    t.text('post_access').notNullable().defaultTo('addon.shoutbox.post')
    t.integer('position').notNullable().defaultTo(0)
    t.boolean('archived').notNullable().defaultTo(false)
    t.integer('slow_mode_seconds').notNullable().defaultTo(0)
    t.bigInteger('created_at').notNullable()
  })
  await db('shoutbox_rooms').insert({ id: 1, slug: 'general', name: 'General', description: '', position: 0, created_at: Date.now() })
  await db.raw("select setval(pg_get_serial_sequence('shoutbox_rooms', 'id'), 1)")
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.integer('room_id').notNullable().defaultTo(1).references('id').inTable('shoutbox_rooms')
  })
  // A room's newest shouts and its pages.
  await db.raw('create index shoutbox_shouts_room_id on shoutbox_shouts (room_id, id)')
  await db.raw(`update shoutbox_events set shout = shout || '{"room":"general"}'::jsonb`)
  // A room's slow mode counts from the member's last post in that room.
  await db.schema.alterTable('shoutbox_flood_control', t => {
    t.jsonb('room_posted_at').notNullable().defaultTo('{}')
  })
}
