import fp from 'fastify-plugin'
import { EventBus } from '../services/event-bus.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Delivers events to the started addons' listeners, in this process. */
    events: EventBus
  }
}

export const eventsPlugin = fp(async app => {
  app.decorate('events', new EventBus(app.log))
}, { name: 'shoutbox-events' })
