import fp from 'fastify-plugin'
import { registerEndpoint } from '../http/endpoint-route.js'

/**
 * Every endpoint class, found by the loader in the host's `endpoints/` folder and in each
 * enabled addon's, registered the same way. Each addon gets its own encapsulated
 * context, so its hooks and decorators stay its own.
 */
export const endpointsPlugin = fp(async app => {
  const host = { ctx: app.addons.hostContext, isStarted: () => true }
  for (const { instance } of app.addons.host.endpoints) registerEndpoint(app, instance, host)

  for (const runtime of app.addons.runtimes.values()) {
    await app.register(async scope => {
      // Called on the addon's scope itself (not registered as a child) so its hooks cover its routes.
      await runtime.addon.definition.plugin?.(scope, {})
      const owner = { ctx: runtime.ctx, isStarted: () => runtime.started }
      for (const { instance } of runtime.addon.endpoints) registerEndpoint(scope, instance, owner)
    })
  }
}, {
  name: 'shoutbox-endpoints',
  dependencies: ['shoutbox-addons', 'shoutbox-http', 'shoutbox-answer-cache', 'shoutbox-event-streams', 'shoutbox-identity', 'shoutbox-i18n', '@fastify/cookie']
})
