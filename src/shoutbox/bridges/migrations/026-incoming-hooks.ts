import type { Database } from '../../../sdk/index.js'

/**
 * Incoming hooks: a secret URL per hook through which another tool (a Slack- or
 * Discord-shaped webhook sender, a bridge) posts into one room. Only the SHA-256 of the
 * secret is kept. `recent` holds the times of the hook's posts in the last minute, so its
 * rate is counted on the hook's own row, across processes. A shout that came in through
 * a hook names it in `via` (the hook's name as it was then): bridges send such shouts to
 * no chat-shaped webhook, so nothing goes round in a loop.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_incoming_hooks', t => {
    t.increments('id')
    t.integer('room_id').notNullable().references('id').inTable('shoutbox_rooms')
    t.text('name').notNullable()
    t.binary('secret_hash').notNullable()
    t.integer('created_by').nullable()
    t.bigInteger('created_at').notNullable()
    t.specificType('recent', 'bigint[]').notNullable().defaultTo(db.raw("'{}'::bigint[]"))
  })
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.text('via').nullable()
  })
}
