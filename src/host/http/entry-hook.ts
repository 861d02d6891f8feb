import type { FastifyReply, FastifyRequest } from 'fastify'
import { InvalidOrigin } from '../../sdk/index.js'
import { bearerSecret } from '../identity/api-tokens.js'
import { EVERY_ANSWER } from './headers.js'

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Refuses a state-changing request sent by a page of another site (CSRF), before its
 * body is read. Browsers send `Origin` on such requests; older ones send
 * `Sec-Fetch-Site`. Clients that send neither (curl, scripts) are not browsers, so a
 * forged cross-site request cannot come from them. Nor is a request that carries an API
 * token (`Authorization: Bearer`): it is answered as the token's user, never the
 * cookie's, and a page of another site cannot set that header without our consent (CORS).
 */
function isCrossSite (request: FastifyRequest, allowed: ReadonlySet<string>, publicUrl: URL | undefined): boolean {
  if (!STATE_CHANGING.has(request.method)) return false
  if (bearerSecret(request.headers.authorization) !== undefined) return false
  const origin = request.headers.origin
  if (origin !== undefined) return !allowed.has(origin) && !sameOrigin(origin, request, publicUrl)
  return request.headers['sec-fetch-site'] === 'cross-site'
}

/**
 * The first hook of every request (callback style: it runs on every request, so it
 * allocates no promise): the headers of every answer, the cross-site refusal, and while
 * the host stops, `Connection: close`, so keep-alive clients go elsewhere once served.
 */
export function entryHook (allowedOrigins: readonly string[], isStopping: () => boolean, publicUrl?: string) {
  const allowed = new Set(allowedOrigins)
  const site = publicUrl === undefined ? undefined : new URL(publicUrl)
  return function onEntry (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    void reply.headers(EVERY_ANSWER)
    if (isStopping()) void reply.header('connection', 'close')
    done(isCrossSite(request, allowed, site) ? new InvalidOrigin() : undefined)
  }
}

/**
 * Whether `origin` is the site the request was sent to. By host only: behind a TLS proxy
 * the scheme we see (http) differs from the browser's (https). With `PUBLIC_URL`, a
 * request to its host must come from exactly that origin, scheme and all: a page served
 * over plain http on the same host (a network that rewrites http) is another site.
 */
function sameOrigin (origin: string, request: FastifyRequest, site: URL | undefined): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // "null" (sandboxed frames, file: pages) and garbage
  }
  const host = withoutDefaultPort(request.host)
  if (site !== undefined && host === withoutDefaultPort(site.host)) return url.origin === site.origin
  return withoutDefaultPort(url.host) === host
}

function withoutDefaultPort (host: string): string {
  return host.toLowerCase().replace(/:(80|443)$/, '')
}
