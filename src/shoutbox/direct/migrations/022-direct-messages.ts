import type { Database } from '../../../sdk/index.js'

/**
 * Direct messages: a conversation of two members is a room of kind `direct` whose
 * readers are its two members (`member_low` < `member_high`, one conversation a pair);
 * its slug is `~` and its id, which no room made in the panel can take. `started_by`
 * counts the conversations a member starts in an hour. A member erased leaves the
 * conversation (null): the other sees `deleted user`. Each member's choice whether
 * others may start one with them has its own table (a row only for one who changed it).
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_rooms', t => {
    t.text('kind').notNullable().defaultTo('room')
    t.integer('member_low').nullable().references('id').inTable('users').onDelete('SET NULL')
    t.integer('member_high').nullable().references('id').inTable('users').onDelete('SET NULL')
    t.integer('started_by').nullable().references('id').inTable('users').onDelete('SET NULL')
  })
  await db.raw("alter table shoutbox_rooms add constraint shoutbox_rooms_kind check (kind in ('room', 'direct'))")
  // One conversation a pair (an erased member's place is null: it no longer counts).
  await db.raw("create unique index shoutbox_rooms_direct_pair on shoutbox_rooms (member_low, member_high) where kind = 'direct'")
  await db.raw("create index shoutbox_rooms_direct_high on shoutbox_rooms (member_high) where kind = 'direct'")
  await db.raw("create index shoutbox_rooms_direct_started on shoutbox_rooms (started_by, created_at) where kind = 'direct'")
  await db.schema.createTable('shoutbox_direct_preferences', t => {
    t.integer('user_id').primary().references('id').inTable('users').onDelete('CASCADE')
    /** 'everyone' or 'nobody': who may start a conversation with them. */
    t.text('accept').notNullable().defaultTo('everyone')
    t.bigInteger('updated_at').notNullable()
  })
}
