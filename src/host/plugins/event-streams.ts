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
  // A stream opened signed in ends with its session (a sign-out, a new password, a new role, on any process).
  app.identity.sessions.onEnd(ended => streams.endSessions(ended))
  // Open streams would keep the server from closing.
  app.addHook('preClose', async () => streams.endAll())
}, { name: 'shoutbox-event-streams', dependencies: ['shoutbox-identity'] })
