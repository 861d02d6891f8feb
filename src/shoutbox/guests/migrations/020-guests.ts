import type { Database } from '../../../sdk/index.js'

/**
 * Guests: people who post without an account, in rooms that let them (`guests_post`, only
 * where everyone reads).
 *
 * - A guest's shout is a shout (`guest`, its name in `username`, no author), with the HMAC
 *   of its address under the key of the day (`guest_address`: never the address), by which
 *   flood limits, mutes and erasure find a guest's shouts.
 * - `shoutbox_guest_proofs`: the proofs of work already used, until they expire, so each
 *   is used once on every process; each with the address (its HMAC) and room it posted
 *   from, which the guests' flood limits count.
 * - `shoutbox_guest_secret`: the key challenges are signed with, made at first use, so
 *   every process checks every other's challenges.
 * - `shoutbox_guest_mutes`: addresses (as their HMAC) a moderator silenced, until when.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.boolean('guest').notNullable().defaultTo(false)
    t.text('guest_address').nullable()
  })
  await db.raw('create index shoutbox_shouts_guest_address on shoutbox_shouts (guest_address, id) where guest_address is not null')
  await db.raw('create index shoutbox_shouts_guest_room on shoutbox_shouts (room_id, date) where guest')
  await db.schema.alterTable('shoutbox_rooms', t => {
    t.boolean('guests_post').notNullable().defaultTo(false)
  })
  await db.schema.createTable('shoutbox_guest_proofs', t => {
    t.text('signature').primary()
    t.bigInteger('expires_at').notNullable().index()
    t.text('address_key').notNullable()
    t.integer('room_id').notNullable()
    t.bigInteger('used_at').notNullable()
  })
  await db.raw('create index shoutbox_guest_proofs_address on shoutbox_guest_proofs (address_key, used_at)')
  await db.raw('create index shoutbox_guest_proofs_room on shoutbox_guest_proofs (room_id, used_at)')
  await db.schema.createTable('shoutbox_guest_secret', t => {
    t.integer('id').primary()
    t.text('secret').notNullable()
  })
  await db.schema.createTable('shoutbox_guest_mutes', t => {
    t.increments('id').primary()
    t.text('address_key').notNullable().index()
    t.bigInteger('until').notNullable()
    t.text('reason').nullable()
    t.bigInteger('shout_id').notNullable()
    t.integer('by_id').nullable()
    t.bigInteger('created_at').notNullable()
  })
}
