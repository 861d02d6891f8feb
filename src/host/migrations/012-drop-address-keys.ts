import type { Knex } from 'knex'

/**
 * The keys of the day that client addresses are hashed with are now derived from a
 * secret outside the database (see AddressKeys): the table that held them goes, and with
 * it the keys of the counters still kept, which no longer tie them to any address.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.dropTable('address_keys')
}
