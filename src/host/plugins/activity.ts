import fp from 'fastify-plugin'
import { activityLogRepository, type ActivityLogRepository } from '../services/activity-log.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The activity feed: written by the host and the addons, read by the panel. */
    activity: ActivityLogRepository
  }
}

export const activityPlugin = fp(async app => {
  app.decorate('activity', activityLogRepository(app.db, app.i18n))
}, { name: 'shoutbox-activity', dependencies: ['shoutbox-database', 'shoutbox-i18n'] })
