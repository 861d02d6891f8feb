import type { Knex } from 'knex'

/**
 * Verified addresses. An account made by signing up while `verifyEmail` is on waits for
 * the link mailed to its address (`email_unconfirmed`) and may not post until it follows
 * it. A verification keeps only the SHA-256 of its token; `spent` once used or replaced.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('users', t => {
    t.boolean('email_unconfirmed').notNullable().defaultTo(false)
  })
  await db.schema.createTable('email_verifications', t => {
    t.text('token_hash').primary()
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE')
    t.boolean('spent').notNullable().defaultTo(false)
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.index(['user_id', 'created_at'])
  })
}
