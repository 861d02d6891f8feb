import fp from 'fastify-plugin'
import { Cluster } from '../services/cluster.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Change notices between the host processes sharing the database. */
    cluster: Cluster
  }
}

export const clusterPlugin = fp(async app => {
  const cluster = new Cluster(app.database, app.log)
  app.decorate('cluster', cluster)
  await cluster.start()
}, { name: 'shoutbox-cluster', dependencies: ['shoutbox-database'] })
