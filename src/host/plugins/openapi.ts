import swagger from '@fastify/swagger'
import type { FastifySchema } from 'fastify'
import fp from 'fastify-plugin'
import { PANEL_API_PREFIX, PANEL_PATH_PREFIX } from '../http/panel-rewrite.js'

/** Where the document is served; the reference page at /docs/api reads it from there. */
export const OPENAPI_PATH = '/api/openapi.json'

/** A route as the panel calls it: `/api/panel/<rest>` is documented as `/panel/api/<rest>`. */
export function documentedPath (url: string): string {
  return url.startsWith(PANEL_API_PREFIX) ? PANEL_PATH_PREFIX + url.slice(PANEL_API_PREFIX.length) : url
}

/**
 * The OpenAPI 3.1 document of every endpoint, host and addon, made by @fastify/swagger
 * from the routes' own schemas (request, answers, access class), so it is never written
 * by hand. Served at GET /api/openapi.json, before and after setup.
 */
export const openApiPlugin = fp<{ version: string }>(async (app, { version }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Shoutbox',
        version,
        description: 'The host platform and its addons. Every JSON answer is `{"result":"ok", …}` or the error envelope ' +
          '`{"result":"error","error":"<CODE>", …}`. Each operation\'s `x-access-class` is its access class (Api, LoggedInApi, ' +
          'PanelApi, SetupApi); signed-in classes need the session cookie, PanelApi a role holding `panel.access` too. ' +
          'Panel endpoints are shown as the panel calls them (`/panel/api/…`); each is also reachable as `/api/panel/…`.'
      },
      components: {
        securitySchemes: {
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: app.identity.sessionCookie.name,
            description: 'The session cookie set by sign-in (`POST /api/auth/login`)'
          }
        }
      }
    },
    // Only the API: pages and files are not operations.
    transform: ({ schema, url }) => ({
      schema: url.startsWith('/api/') ? schema : { ...schema, hide: true },
      url: documentedPath(url)
    })
  })

  let document: string | undefined
  const schema: FastifySchema & Record<string, unknown> = {
    operationId: 'host.OpenApiDocument',
    summary: 'OpenApiDocument',
    tags: ['host'],
    security: [],
    'x-access-class': 'Api',
    response: { 200: { description: 'This document (OpenAPI 3.1)', type: 'object', additionalProperties: true } }
  }
  app.get(OPENAPI_PATH, { schema }, async (_request, reply) => {
    // Routes cannot change once the app is ready: made once, sent as bytes.
    document ??= JSON.stringify(app.swagger())
    return reply.type('application/json; charset=utf-8').send(document)
  })
}, { name: 'shoutbox-openapi', dependencies: ['shoutbox-identity'] })
