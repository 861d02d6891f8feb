import type { Knex } from 'knex'

/**
 * Mention mails. A member chooses `email_mentions` (off, batched, daily); the mailer
 * remembers, per member, the newest notification it has decided about
 * (`mentions_mailed_through`, written in the transaction that writes the mail) and when
 * it last sent a daily digest (`mentions_mailed_at`), and the language they chose them in
 * (`mail_locale`), which the mails are written in.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.alterTable('user_preferences', t => {
    t.text('email_mentions').notNullable().defaultTo('off')
    t.bigInteger('mentions_mailed_through').notNullable().defaultTo(0)
    t.bigInteger('mentions_mailed_at').nullable()
    t.text('mail_locale').nullable()
  })
  await db.raw("alter table user_preferences add constraint user_preferences_email_mentions check (email_mentions in ('off', 'batched', 'daily'))")
  await db.raw("create index user_preferences_mention_mails on user_preferences (email_mentions) where email_mentions <> 'off'")
}
