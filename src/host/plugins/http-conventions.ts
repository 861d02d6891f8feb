import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { EmbedCors } from '../http/embed-cors.js'
import { entryHook } from '../http/entry-hook.js'
import { answerError, installErrorHandling, type ConditionLog } from '../http/error-handler.js'
import { installJsonBodyParser } from '../http/json-body.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** CORS for the embedding sites (`EMBED_ORIGINS`) on the public GET routes, which open themselves as they are registered. */
    embedCors: EmbedCors
  }
}

interface HttpConventionsOptions {
  allowedOrigins: readonly string[]
  embedOrigins: readonly string[]
  publicUrl: string | undefined
  conditions: ConditionLog
}

/** For every route: the error envelope, JSON bodies only, the headers of every answer, the cross-site refusal, embedding sites' CORS. */
export const httpConventions = fp<HttpConventionsOptions>(async (app, { allowedOrigins, embedOrigins, publicUrl, conditions }) => {
  app.decorate('embedCors', new EmbedCors(embedOrigins))
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
