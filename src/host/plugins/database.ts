import fp from 'fastify-plugin'
import type { Knex } from 'knex'
import type { Database } from '../database/connect.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The open database: PostgreSQL or the embedded one. Closed last, by the addons plugin. */
    database: Database
    /** Its query builder. */
    db: Knex
  }
}

export const databasePlugin = fp<{ database: Database }>(async (app, { database }) => {
  app.decorate('database', database)
  app.decorate('db', database.knex)
}, { name: 'shoutbox-database', fastify: '5.x' })
