import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { entryHook } from '../http/entry-hook.js'
import { answerError, installErrorHandling, type ConditionLog } from '../http/error-handler.js'
import { installJsonBodyParser } from '../http/json-body.js'

/** For every route: the error envelope, JSON bodies only, the headers of every answer, the cross-site refusal. */
export const httpConventions = fp<{ allowedOrigins: readonly string[], publicUrl: string | undefined, conditions: ConditionLog }>(async (app, { allowedOrigins, publicUrl, conditions }) => {
  installErrorHandling(app, conditions)
  installJsonBodyParser(app)
  app.addHook('onRequest', entryHook(allowedOrigins, () => app.addons.stopping, publicUrl))
}, { name: 'shoutbox-http', dependencies: ['shoutbox-addons'] })

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode, or a path parameter over
 * the limit, is refused before any hook runs, so Fastify would answer it in its own shape.
 * Here it gets what every request gets first (the entry hook: headers, the cross-site
 * refusal), then the error handler's envelope.
 */
export function routerErrors (allowedOrigins: readonly string[], isStopping: () => boolean, publicUrl: string | undefined, conditions: ConditionLog) {
  const onEntry = entryHook(allowedOrigins, isStopping, publicUrl)
  return function onRouterError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    onEntry(request, reply, refusal => answerError(refusal ?? error, request, reply, conditions))
  }
}
