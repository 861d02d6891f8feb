import fp from 'fastify-plugin'
import type { Database } from '../../sdk/index.js'
import type { OpenDatabase } from '../database/connect.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The open database: PostgreSQL or the embedded one. Closed last, by the addons plugin. */
    database: OpenDatabase
    /** Its query builder. */
    db: Database
  }
}

export const databasePlugin = fp<{ database: OpenDatabase }>(async (app, { database }) => {
  app.decorate('database', database)
  app.decorate('db', database.knex)
}, { name: 'shoutbox-database', fastify: '5.x' })
