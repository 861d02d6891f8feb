import type { Knex } from 'knex'

/**
 * A disabled account cannot sign in and its sessions are gone; it is kept (not deleted)
 * so an administrator can enable it again.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('users', t => {
    t.boolean('disabled').notNullable().defaultTo(false)
  })
}
