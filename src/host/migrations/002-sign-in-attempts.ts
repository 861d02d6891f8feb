import type { Knex } from 'knex'

/**
 * Sign-in attempts, counted before the password is hashed (`login-throttle.ts`). Replaces
 * `login_failures`, which counted after the hash and locked a username for every address.
 * `key` is a hash of what it counts (a login typed from an address, or an address), so
 * the table never holds a typed login — people do type their password into that field.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('login_failures')
  await db.schema.createTable('sign_in_attempts', t => {
    t.text('key').primary()
    t.integer('attempts').notNullable()
    t.bigInteger('next_allowed_at').notNullable()
    t.bigInteger('last_attempt_at').notNullable().index()
  })
}
