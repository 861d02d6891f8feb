import type { Knex } from 'knex'

/**
 * The sender claims each hook's due deliveries on their own (a lane per hook): an index
 * by hook over the pending ones, in place of the one over all hooks, so a hook with a
 * long backlog is never read through to reach another's.
 */
export async function up (db: Knex): Promise<void> {
  await db.raw("create index webhook_deliveries_lanes on webhook_deliveries (hook_id, next_attempt_at) where status = 'pending'")
  await db.raw('drop index webhook_deliveries_due')
}
