import type {} from '@fastify/cookie'
import type {} from '../plugins/platform.js'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import {
  NoPermission, NotLoggedIn, PlatformAlreadyInstalled, ServiceUnavailable,
  type AddonContext, type Answer, type CookieOptions, type Endpoint
} from '../../sdk/index.js'
import { SUCCESSFUL } from '../../sdk/brands.js'
import { holdsNode } from '../identity/permissions.js'
import { matchesEtag } from './memory-answers.js'
import { SESSION_COOKIE } from '../identity/sessions.js'
import type { Platform } from '../platform.js'

export const BODY_LIMIT = 64 * 1024

/** Whose endpoint it is: the host, or an addon that may not have started. */
export interface EndpointOwner {
  readonly ctx: AddonContext
  isReady (): boolean
}

/** Host endpoints (setup status, health) that answer before setup too. */
export interface AvailableBeforeSetup {
  readonly availableBeforeSetup?: boolean
}

/**
 * Registers one endpoint class as a Fastify route: the access check of its class runs
 * on request (before the body is read), then schema validation, then `handle`.
 */
export function registerEndpoint (scope: FastifyInstance, endpoint: Endpoint & AvailableBeforeSetup, owner: EndpointOwner, platform: Platform): void {
  const schema: FastifySchema = {}
  if (endpoint.schema.body !== undefined) schema.body = endpoint.schema.body
  if (endpoint.schema.params !== undefined) schema.params = endpoint.schema.params
  if (endpoint.schema.querystring !== undefined) schema.querystring = endpoint.schema.querystring

  scope.route({
    method: endpoint.method,
    url: endpoint.path,
    schema,
    bodyLimit: Math.min(endpoint.bodyLimit ?? BODY_LIMIT, BODY_LIMIT),
    onRequest: accessCheck(endpoint, owner, platform),
    handler: async (request, reply) => {
      const answer = await endpoint.handle(makeCall(request, reply, owner.ctx, platform))
      return send(request, reply, answer)
    }
  })
}

function accessCheck (endpoint: Endpoint & AvailableBeforeSetup, owner: EndpointOwner, platform: Platform) {
  const check = slowAccessCheck(endpoint, owner, platform)
  // Callback style, with a synchronous fast path: a public endpoint of a running platform
  // (every list request) costs no promise here.
  return function checkAccess (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    if (endpoint.access === 'Api' && platform.ready && owner.isReady()) {
      done()
      return
    }
    check(request).then(() => done(), done)
  }
}

function slowAccessCheck (endpoint: Endpoint & AvailableBeforeSetup, owner: EndpointOwner, platform: Platform) {
  return async function checkAccess (request: FastifyRequest): Promise<void> {
    if (endpoint.access === 'SetupApi') {
      if (await platform.settings.isSetupDone()) throw new PlatformAlreadyInstalled()
      return
    }
    if (endpoint.availableBeforeSetup !== true) await platform.ensureReady()
    if (!owner.isReady()) throw new ServiceUnavailable()
    if (endpoint.access === 'Api') return
    const token = request.cookies[SESSION_COOKIE]
    const user = token === undefined ? null : await platform.sessions.resolve(token)
    if (user === null) throw new NotLoggedIn()
    if (endpoint.access === 'PanelApi' && !holdsNode(user, 'panel.access')) throw new NoPermission()
    request.sessionUser = user
  }
}

function makeCall (request: FastifyRequest, reply: FastifyReply, ctx: AddonContext, platform: Platform) {
  const user = request.sessionUser
  const query = (request.query ?? {}) as Record<string, unknown>
  return {
    body: request.body,
    params: request.params,
    query,
    headers: request.headers,
    user,
    ip: request.ip,
    ctx,
    get locale () {
      return platform.i18n.resolveLocale(query.locale, request.headers['accept-language'])
    },
    protocol: request.protocol,
    reply: {
      header (name: string, value: string) {
        void reply.header(name, value)
      },
      setCookie (name: string, value: string, options: CookieOptions) {
        void reply.setCookie(name, value, {
          path: options.path ?? '/',
          httpOnly: options.httpOnly ?? true,
          sameSite: options.sameSite ?? 'lax',
          secure: options.secure ?? request.protocol === 'https',
          ...(options.maxAgeSeconds === undefined ? {} : { maxAge: options.maxAgeSeconds })
        })
      },
      clearCookie (name: string, options?: Pick<CookieOptions, 'path'>) {
        void reply.clearCookie(name, { path: options?.path ?? '/' })
      }
    },
    requirePermission (key: string) {
      if (user === null || !ctx.permissions.has(user, key)) throw new NoPermission()
    },
    hijack () {
      reply.hijack()
      return reply.raw
    }
  } as Parameters<Endpoint['handle']>[0]
}

function send (request: FastifyRequest, reply: FastifyReply, answer: Answer): unknown {
  if (reply.sent) return reply
  if (answer === undefined) return { result: 'ok' }
  if (!(answer as unknown as Record<symbol, unknown>)[SUCCESSFUL]) throw new Error('an endpoint must return Successful')
  if ('json' in answer) {
    if (answer.etag !== undefined) {
      void reply.header('etag', answer.etag)
      if (matchesEtag(request.headers['if-none-match'], answer.etag)) return reply.code(304).send()
    }
    return reply.type('application/json; charset=utf-8').send(answer.json)
  }
  return { result: 'ok', ...answer.fields }
}

