import type { Knex } from 'knex'

/**
 * Retired usernames are kept as the SHA-256 of their lower case: an erased member's name
 * is refused to newcomers without being stored: erasure reaches every copy of a name.
 */
export async function up (db: Knex): Promise<void> {
  await db.raw("update retired_usernames set username = encode(sha256(convert_to(username, 'UTF8')), 'hex') where username !~ '^[0-9a-f]{64}$'")
}
