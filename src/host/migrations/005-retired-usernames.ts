import type { Knex } from 'knex'

/**
 * The usernames of deleted accounts, lower-cased: nobody takes one again. Shouts and
 * activity entries keep the name they were written with, so a newcomer under a deleted
 * member's name would seem to have written them.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('retired_usernames', t => {
    t.text('username').primary()
    t.bigInteger('retired_at').notNullable()
  })
  await retireDeletedUsernames(db)
}

/**
 * Accounts deleted before this table existed are named by the activity feed's
 * DELETED_USER entries; a name someone has taken since stays theirs. Kept as the
 * SHA-256 of the lower-cased name, as `users.delete` keeps it (migration 013).
 */
export async function retireDeletedUsernames (db: Knex): Promise<void> {
  await db.raw(`
    insert into retired_usernames (username, retired_at)
    select encode(sha256(convert_to(lower(details->>'user'), 'UTF8')), 'hex'), max(created_at) from activity_logs
    where type = 'DELETED_USER' and details->>'user' is not null
      and not exists (select 1 from users where lower(users.username) = lower(activity_logs.details->>'user'))
    group by lower(details->>'user')
    on conflict (username) do nothing`)
}
