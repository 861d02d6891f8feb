import type { Knex } from 'knex'

/**
 * Pictures uploaded to the site, written again as WebP (`src/host/pictures/`). Each row is
 * one upload by one person (`user_id`; erasing them takes it) for one owner (`owner_id`,
 * an addon's id, or `host` for the site's logo), named by the SHA-256 of the picture's
 * bytes (the same picture uploaded twice: two rows, one name). The bytes are in `image`
 * and `thumb` by default — every process serves them — or, with UPLOADS_DIR, in files.
 */
export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('uploads', t => {
    t.bigIncrements('id').primary()
    t.text('owner_id').notNullable()
    t.text('kind').notNullable()
    t.integer('user_id').nullable().references('id').inTable('users').onDelete('CASCADE')
    t.specificType('sha256', 'char(64)').notNullable()
    t.integer('width').notNullable()
    t.integer('height').notNullable()
    t.integer('size').notNullable()
    t.binary('image').nullable()
    t.binary('thumb').nullable()
    t.bigInteger('created_at').notNullable()
    t.index(['sha256'])
    t.index(['user_id'])
    t.index(['created_at'])
  })
  await db.raw("alter table uploads add constraint uploads_kind check (kind in ('picture', 'logo'))")
}
