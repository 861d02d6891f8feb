import fp from 'fastify-plugin'
import { entryHook } from '../http/entry-hook.js'
import { installErrorHandling } from '../http/error-handler.js'
import { installJsonBodyParser } from '../http/json-body.js'

/** CONTRACT §3 for every route: the envelope, JSON bodies only, nosniff, the cross-site refusal. */
export const httpConventions = fp<{ allowedOrigins: readonly string[] }>(async (app, { allowedOrigins }) => {
  installErrorHandling(app)
  installJsonBodyParser(app)
  app.addHook('onRequest', entryHook(allowedOrigins, () => app.platform.stopping))
}, { name: 'shoutbox-http', dependencies: ['shoutbox-platform'] })
