import fp from 'fastify-plugin'
import { Notifications } from '../services/notifications.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Notifications to one user, from the host and the addons; heard on that user's streams on every process. */
    notifications: Notifications
  }
}

export const notificationsPlugin = fp(async app => {
  app.decorate('notifications', new Notifications(app.db, app.cluster))
}, { name: 'shoutbox-notifications', dependencies: ['shoutbox-database', 'shoutbox-cluster'] })
