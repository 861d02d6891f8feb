import type { Knex } from 'knex'

/**
 * The mail outbox and password resets. A mail is written in the transaction that asks for
 * it, so a change that committed has its mail whatever happens to the process next; the
 * sender claims due rows (`locked_until`) with `FOR UPDATE SKIP LOCKED`, so one process
 * at a time sends each. A mail hangs on its person (`user_id`): erasing them takes it.
 * A reset, and an e-mail change waiting for its link, keep only the SHA-256 of their
 * token; `spent` once used or replaced.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('mail_outbox', t => {
    t.uuid('id').primary().defaultTo(db.raw('gen_random_uuid()'))
    t.integer('user_id').nullable().references('id').inTable('users').onDelete('CASCADE')
    t.text('kind').notNullable()
    t.text('to_address').notNullable()
    t.text('subject').notNullable()
    t.text('body_text').nullable()
    t.text('body_html').nullable()
    t.jsonb('headers').notNullable().defaultTo('{}')
    t.text('status').notNullable().defaultTo('pending')
    t.integer('attempts').notNullable().defaultTo(0)
    t.text('last_error').nullable()
    t.bigInteger('next_attempt_at').notNullable()
    t.bigInteger('locked_until').nullable()
    t.bigInteger('created_at').notNullable()
    t.index(['created_at'])
    t.index(['user_id'])
  })
  await db.raw("alter table mail_outbox add constraint mail_outbox_status check (status in ('pending', 'sent', 'failed'))")
  await db.raw("create index mail_outbox_due on mail_outbox (next_attempt_at) where status = 'pending'")
  await db.schema.createTable('password_resets', t => {
    t.text('token_hash').primary()
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE')
    t.boolean('spent').notNullable().defaultTo(false)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.index(['user_id', 'created_at'])
  })
  await db.schema.createTable('email_changes', t => {
    t.text('token_hash').primary()
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE')
    t.text('new_email').notNullable()
    t.boolean('spent').notNullable().defaultTo(false)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.index(['user_id', 'created_at'])
  })
}
