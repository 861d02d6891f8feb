import fp from 'fastify-plugin'
import { ActivityLogStore } from '../services/activity-log.js'
import { NotificationStore } from '../services/notifications.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The activity feed: written by the host and the addons, read by the panel. */
    activity: ActivityLogStore
    /** Notifications to one user, from the host and the addons; heard on that user's streams on every process. */
    notifications: NotificationStore
  }
}

export const activityPlugin = fp(async app => {
  app.decorate('activity', new ActivityLogStore(app.db, app.i18n))
  app.decorate('notifications', new NotificationStore(app.db, app.cluster))
}, { name: 'shoutbox-activity', dependencies: ['shoutbox-database', 'shoutbox-i18n', 'shoutbox-cluster'] })
