import type { Knex } from 'knex'

/** The activity log's retention deletes by age: an index on it. */
export async function up (db: Knex): Promise<void> {
  await db.raw('create index activity_logs_created_at on activity_logs (created_at)')
}
