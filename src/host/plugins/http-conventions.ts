import fp from 'fastify-plugin'
import { entryHook } from '../http/entry-hook.js'
import { installErrorHandling } from '../http/error-handler.js'
import { installJsonBodyParser } from '../http/json-body.js'

/** For every route: the error envelope, JSON bodies only, the headers of every answer, the cross-site refusal. */
export const httpConventions = fp<{ allowedOrigins: readonly string[] }>(async (app, { allowedOrigins }) => {
  installErrorHandling(app)
  installJsonBodyParser(app)
  app.addHook('onRequest', entryHook(allowedOrigins, () => app.addons.stopping))
}, { name: 'shoutbox-http', dependencies: ['shoutbox-addons'] })
