import type { Database } from '../../sdk/index.js'

/**
 * The review queue.
 *
 * - `shoutbox_review`: shouts off the board until a moderator decides: `held` ones (a
 *   watched word, or a new member's first shouts) were never on it; `hidden` ones were,
 *   until enough members reported them. Their ids are shout ids (a held shout takes one
 *   from the shouts' own sequence), so no shout on the board ever shares one.
 * - `shoutbox_reports`: members' reports, open until the shout is reviewed. No foreign
 *   key: a report outlives its shout's place on the board (hidden, or deleted). One open
 *   report per member and shout.
 * - Each member's recent flood refusals and shouts deleted by review, for the automatic
 *   silence (as their recent posts are kept, in the flood-control row); a mute the board
 *   made by itself has no moderator.
 */
export async function up (db: Database): Promise<void> {
  await db.schema.createTable('shoutbox_review', t => {
    t.bigInteger('id').primary()
    t.integer('room_id').notNullable()
    t.integer('author_id').nullable()
    t.text('username').notNullable()
    t.text('message').notNullable()
    t.bigInteger('date').notNullable()
    t.bigInteger('reply_to_id').nullable()
    t.text('state').notNullable()
    t.text('why').notNullable()
    t.bigInteger('since').notNullable()
    t.index(['author_id'])
  })
  await db.raw("alter table shoutbox_review add constraint shoutbox_review_state check (state in ('held', 'hidden'))")
  await db.schema.createTable('shoutbox_reports', t => {
    t.increments('id')
    t.bigInteger('shout_id').notNullable()
    t.integer('user_id').notNullable()
    t.text('reason').notNullable()
    t.text('note').nullable()
    t.bigInteger('created_at').notNullable()
    t.bigInteger('resolved_at').nullable()
    t.text('outcome').nullable()
    t.index(['user_id', 'created_at'])
  })
  await db.raw("alter table shoutbox_reports add constraint shoutbox_reports_reason check (reason in ('spam', 'abuse', 'off-topic', 'other'))")
  await db.raw('create unique index shoutbox_reports_open on shoutbox_reports (shout_id, user_id) where resolved_at is null')
  await db.raw('create index shoutbox_reports_open_shouts on shoutbox_reports (shout_id) where resolved_at is null')
  await db.schema.alterTable('shoutbox_flood_control', t => {
    t.jsonb('refusals_recent').notNullable().defaultTo('[]')
    t.jsonb('review_deletions_recent').notNullable().defaultTo('[]')
  })
  // A member's first shouts are held while they have fewer than `holdFirstShouts` on the board.
  await db.raw('create index shoutbox_shouts_author on shoutbox_shouts (author_id)')
  await db.raw('alter table shoutbox_mutes alter column by_id drop not null, alter column by_username drop not null')
}
