import fp from 'fastify-plugin'
import type { SessionUser } from '../../sdk/index.js'
import type { Platform } from '../platform.js'

declare module 'fastify' {
  interface FastifyInstance {
    platform: Platform
  }
  interface FastifyRequest {
    /** Set by the access check of LoggedInApi and PanelApi endpoints. */
    sessionUser: SessionUser | null
  }
}

/**
 * The host's services on the root instance, and their life cycle: addons stop before
 * the server closes (their event streams end), the database closes after it.
 */
export const platformPlugin = fp<{ platform: Platform }>(async (app, { platform }) => {
  app.decorate('platform', platform)
  app.decorateRequest('sessionUser', null)
  // While stopping, a keep-alive connection is closed as soon as its last answer is sent
  // (Node closes the idle ones only once, when the stop begins).
  let sweep: NodeJS.Timeout | undefined
  app.addHook('preClose', async () => {
    sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref()
    await platform.stopAddons()
  })
  app.addHook('onClose', async () => {
    clearInterval(sweep)
    await platform.close()
  })
}, { name: 'shoutbox-platform', fastify: '5.x' })
