import type { Knex } from 'knex'

export async function up (db: Knex): Promise<void> {
  await db.schema.createTable('settings', t => {
    t.text('key').primary()
    t.jsonb('value').notNullable()
  })
  await db.schema.createTable('roles', t => {
    t.increments('id')
    t.text('name').notNullable()
    t.jsonb('permissions').notNullable().defaultTo('[]')
    t.boolean('builtin').notNullable().defaultTo(false)
  })
  await db.raw('create unique index roles_name_unique on roles (lower(name))')
  await db('roles').insert({ name: 'admin', permissions: JSON.stringify(['*']), builtin: true })
  await db.schema.createTable('users', t => {
    t.increments('id')
    t.text('username').notNullable()
    t.text('email').notNullable()
    t.text('password_hash').notNullable()
    t.integer('role_id').notNullable().references('roles.id')
    t.bigInteger('created_at').notNullable()
  })
  await db.raw('create unique index users_username_unique on users (lower(username))')
  await db.raw('create unique index users_email_unique on users (lower(email))')
  await db.schema.createTable('sessions', t => {
    t.text('token_hash').primary()
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.bigInteger('created_at').notNullable()
    t.bigInteger('expires_at').notNullable().index()
  })
  await db.schema.createTable('activity_logs', t => {
    t.bigIncrements('id')
    t.text('type').notNullable()
    t.integer('user_id')
    t.text('username')
    t.text('addon_id')
    t.jsonb('details').notNullable().defaultTo('{}')
    t.bigInteger('created_at').notNullable()
  })
  await db.schema.createTable('addon_config', t => {
    t.text('addon_id').notNullable()
    t.text('key').notNullable()
    t.jsonb('value')
    t.primary(['addon_id', 'key'])
  })
  await db.schema.createTable('addon_state', t => {
    t.text('addon_id').primary()
    t.boolean('enabled').notNullable()
  })
  await db.schema.createTable('login_failures', t => {
    t.text('key').primary()
    t.integer('failures').notNullable()
    t.bigInteger('window_started_at').notNullable()
    t.bigInteger('locked_until').notNullable().defaultTo(0)
  })
}
