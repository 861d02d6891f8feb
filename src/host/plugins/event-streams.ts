import fp from 'fastify-plugin'
import { EventStreams, type StreamLimits } from '../http/event-streams.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The open Server-Sent Events answers of this process. */
    eventStreams: EventStreams
  }
}

export const eventStreamsPlugin = fp<{ limits?: StreamLimits }>(async (app, { limits }) => {
  const streams = new EventStreams(limits)
  app.decorate('eventStreams', streams)
  // Open streams would keep the server from closing.
  app.addHook('preClose', async () => streams.endAll())
}, { name: 'shoutbox-event-streams' })
