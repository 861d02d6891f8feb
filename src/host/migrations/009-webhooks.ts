import type { Knex } from 'knex'

/**
 * Outgoing webhooks and their outbox. A delivery row is written in the same transaction
 * as the change it tells of, so an acknowledged change's delivery survives any crash;
 * the sender claims due rows (`locked_until`) with `FOR UPDATE SKIP LOCKED`, so one
 * process at a time sends each. `subject` names what the delivery is about (a shout), so
 * its text can leave a pending delivery when that is deleted.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('webhooks', t => {
    t.increments('id')
    t.text('url').notNullable()
    t.jsonb('events').notNullable()
    t.boolean('active').notNullable().defaultTo(true)
    t.text('secret').notNullable()
    t.bigInteger('created_at').notNullable()
  })
  await db.schema.createTable('webhook_deliveries', t => {
    t.uuid('id').primary().defaultTo(db.raw('gen_random_uuid()'))
    t.integer('hook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE')
    t.text('event').notNullable()
    t.jsonb('data').notNullable()
    t.text('subject').nullable()
    t.text('status').notNullable().defaultTo('pending')
    t.integer('attempts').notNullable().defaultTo(0)
    t.integer('response_code').nullable()
    t.bigInteger('next_attempt_at').notNullable()
    t.bigInteger('locked_until').nullable()
    t.bigInteger('created_at').notNullable()
    t.index(['hook_id', 'created_at'])
  })
  await db.raw("alter table webhook_deliveries add constraint webhook_deliveries_status check (status in ('pending', 'delivered', 'failed'))")
  await db.raw("create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'")
  await db.raw("create index webhook_deliveries_subject on webhook_deliveries (subject) where status = 'pending'")
}
