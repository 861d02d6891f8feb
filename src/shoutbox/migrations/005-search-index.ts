import type { Database } from '../../sdk/index.js'

/**
 * The archive's word search: a GIN index over each message's words. `simple` keeps every
 * word as written (lower-cased, no stemming, no stop words), whatever the board's
 * language. The archive's query uses this exact expression, so PostgreSQL uses the index.
 */
export async function up (db: Database): Promise<void> {
  await db.raw("create index shoutbox_shouts_message_search on shoutbox_shouts using gin (to_tsvector('simple', message))")
}
