import type { Knex } from 'knex'

/**
 * Notifications: what the platform tells one user (a mention, from the shoutbox; any
 * addon may notify). `key` names what a notification is about, so it leaves when that
 * does (a deleted shout's mentions); `read` is the user's.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('notifications', t => {
    t.bigIncrements('id')
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE')
    t.text('addon_id').notNullable()
    t.text('kind').notNullable()
    t.jsonb('data').notNullable()
    t.text('key').nullable()
    t.bigInteger('created_at').notNullable()
    t.boolean('read').notNullable().defaultTo(false)
    t.index(['user_id', 'id'])
    t.index(['addon_id', 'key'])
  })
  await db.raw('create index notifications_unread on notifications (user_id) where not read')
}
