import type { Knex } from 'knex'

export async function up (db: Knex): Promise<void> {
  // The role sign-ups get unless the site chooses another: built in, never in the panel.
  // A site that already made a role of that name keeps it, now as the built-in one.
  const existing = await db('roles').whereRaw('lower(name) = ?', ['member']).first<{ id: number } | undefined>('id')
  if (existing === undefined) await db('roles').insert({ name: 'member', permissions: JSON.stringify([]), builtin: true })
  else await db('roles').where({ id: existing.id }).update({ builtin: true })

  // Permission nodes an addon marks `default`, once granted to the member role: never
  // granted again, so a permission an administrator took away stays away.
  await db.schema.createTable('default_grants', t => {
    t.text('node').primary()
    t.bigInteger('granted_at').notNullable()
  })

  // Fixed-window counters per key (sign-ups per client address), shared by every process.
  await db.schema.createTable('address_quotas', t => {
    t.text('key').primary()
    t.integer('count').notNullable()
    t.bigInteger('window_started_at').notNullable()
  })
}
