import fp from 'fastify-plugin'
import { hostEndpoints } from '../endpoints/index.js'
import { registerEndpoint } from '../http/endpoint-route.js'

/** Setup, sign-in, roles, users, the feed, addons, health: the same endpoint classes an addon writes. */
export const hostEndpointsPlugin = fp(async app => {
  const host = { ctx: app.platform.hostContext, isReady: () => true }
  for (const endpoint of hostEndpoints(app.platform)) registerEndpoint(app, endpoint, host, app.platform)
}, { name: 'shoutbox-host-endpoints', dependencies: ['shoutbox-platform', 'shoutbox-http', '@fastify/cookie'] })
