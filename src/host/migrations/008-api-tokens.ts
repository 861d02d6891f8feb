import type { Knex } from 'knex'

/**
 * API tokens and bot accounts. A token acts as its user with the permissions it was
 * given that the user still holds; the table keeps only the SHA-256 of its secret. A bot
 * account has no password a sign-in could match: it acts only through tokens an
 * administrator creates for it.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('users', t => {
    t.boolean('bot').notNullable().defaultTo(false)
  })
  await db.schema.createTable('api_tokens', t => {
    t.increments('id')
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE')
    t.text('name').notNullable()
    t.text('secret_hash').notNullable().unique()
    t.jsonb('permissions').notNullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable()
    t.bigInteger('last_used_at').nullable()
    t.index(['user_id'])
  })
}
