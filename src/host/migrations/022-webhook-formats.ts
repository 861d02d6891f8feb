import type { Knex } from 'knex'

/**
 * What a webhook's deliveries look like: Shoutbox's own envelope, or the body a Slack or
 * Discord channel's incoming webhook takes (the text of a shout and who said it).
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('webhooks', t => {
    t.text('format').notNullable().defaultTo('shoutbox')
  })
  await db.raw("alter table webhooks add constraint webhooks_format check (format in ('shoutbox', 'slack', 'discord'))")
}
