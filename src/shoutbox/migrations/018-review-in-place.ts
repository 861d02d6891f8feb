import type { Database } from '../../sdk/index.js'

/**
 * Review without loss: a shout off the board stays in the shouts table, marked, instead of
 * moving to a table of its own (and coming back under a new id, without its reactions,
 * its replies quoting a deleted shout).
 *
 * - `state`: null on the board; `held` (never on it yet: a watched word, a new member, an
 *   edit that needs another look) or `hidden` (taken off it by reports), with `why` and
 *   `since`. Every reader's path reads `state is null`.
 * - `vouched`: staff approved it or kept it against reports: reports queue, they hide it
 *   no more. `approved`: it was held and approved: its author's next edit is held again.
 * - Each report keeps whether it counts toward hiding (`weighs`: its account was old
 *   enough) and what stands for its address (`address_key`: the HMAC of the day, never the
 *   address), so reports from one address count once.
 *
 * The review table's shouts move in (their ids came from the shouts' own sequence).
 */
export async function up (db: Database): Promise<void> {
  await db.schema.alterTable('shoutbox_shouts', t => {
    t.text('state').nullable()
    t.text('why').nullable()
    t.bigInteger('since').nullable()
    t.boolean('vouched').notNullable().defaultTo(false)
    t.boolean('approved').notNullable().defaultTo(false)
  })
  await db.raw("alter table shoutbox_shouts add constraint shoutbox_shouts_state check (state in ('held', 'hidden'))")
  await db.raw('create index shoutbox_shouts_off_board on shoutbox_shouts (id) where state is not null')
  await db.raw(`insert into shoutbox_shouts (id, room_id, author_id, username, message, date, reply_to_id, state, why, since) overriding system value
    select id, room_id, author_id, username, message, date, reply_to_id, state, why, since from shoutbox_review`)
  await db.schema.dropTable('shoutbox_review')
  await db.schema.alterTable('shoutbox_reports', t => {
    t.boolean('weighs').notNullable().defaultTo(true)
    t.text('address_key').nullable()
  })
}
