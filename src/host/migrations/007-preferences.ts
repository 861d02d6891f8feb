import type { Knex } from 'knex'

/**
 * A member's preferences: a sound and a desktop notification when they are notified, and
 * the site's look. A user with no row has the defaults (all off, the system's theme), so
 * a row is written only when someone changes something.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('user_preferences', t => {
    t.integer('user_id').primary().references('id').inTable('users').onDelete('CASCADE')
    t.boolean('sound').notNullable().defaultTo(false)
    t.boolean('desktop_notifications').notNullable().defaultTo(false)
    t.text('theme').notNullable().defaultTo('system')
  })
  await db.raw("alter table user_preferences add constraint user_preferences_theme check (theme in ('system', 'light', 'dark'))")
}
