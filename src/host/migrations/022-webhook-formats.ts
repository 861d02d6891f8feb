import type { Knex } from 'knex'

/**
 * What a webhook's deliveries look like: Shoutbox's own envelope, or the body a Slack or
 * Discord channel's incoming webhook takes (the text of a shout and who said it); and the
 * one room whose events it gets, when it names one (a chat channel bridged to a room).
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('webhooks', t => {
    t.text('format').notNullable().defaultTo('shoutbox')
    t.text('room').nullable()
  })
  await db.raw("alter table webhooks add constraint webhooks_format check (format in ('shoutbox', 'slack', 'discord'))")
}
