import type { Database } from '../../sdk/index.js'

/**
 * Conversation: replies and reactions.
 *
 * - A shout may answer another (`reply_to_id`). It keeps the id when the original is
 *   deleted (no foreign key): the reply then shows that it answered a shout now gone.
 * - Reactions: one row per member, shout and emoji, gone with the shout. The shout's
 *   `reactions_announced_at` and `reactions_pending` coalesce their stream events, across
 *   processes: at most one a second per shout.
 * - Each member's recent reaction changes, for their limit (a minute's worth).
 * - The stream's history finds the replies to a shout (to update or blank their quoted
 *   line when it is edited or deleted) by an index, as it finds the shout's own events.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.bigInteger('reply_to_id').nullable()
    t.bigInteger('reactions_announced_at').notNullable().defaultTo(0)
    t.boolean('reactions_pending').notNullable().defaultTo(false)
  })
  await db.schema.createTable('shoutbox_reactions', t => {
    t.bigInteger('shout_id').notNullable().references('id').inTable('shoutbox_shouts').onDelete('CASCADE')
    t.integer('user_id').notNullable()
    t.text('emoji').notNullable()
    t.bigInteger('created_at').notNullable()
    t.primary(['shout_id', 'emoji', 'user_id'])
  })
  await db.schema.alterTable('shoutbox_flood_control', t => {
    t.jsonb('reactions_recent').notNullable().defaultTo('[]')
  })
  // The shouts already in the history answered nothing.
  await db.raw(`update shoutbox_events set shout = shout || '{"replyTo": null}'::jsonb where shout->>'message' is not null`)
  await db.raw(`create index shoutbox_events_reply_to on shoutbox_events (((shout->'replyTo'->>'id')::bigint))`)
}
