import type { Knex } from 'knex'

/**
 * A member's language: the one every page, mail and sentence of the activity feed is
 * drawn in for them. Null (every row until they choose): their browser's languages
 * (`Accept-Language`), then the site's default.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('user_preferences', t => {
    t.text('locale').nullable()
  })
  await db.raw("alter table user_preferences add constraint user_preferences_locale check (locale is null or locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,1}$')")
}
