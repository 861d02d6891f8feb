import type { Knex } from 'knex'

/**
 * The keys of the day that client addresses are hashed with (see AddressKeys): one random
 * key per UTC day, deleted the day after next. The per-address counters kept before
 * held addresses in clear; they are short-lived, and go.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('address_keys', t => {
    t.text('day').primary()
    t.text('key').notNullable()
  })
  await db('address_quotas').delete()
  await db('sign_in_attempts').delete()
}
