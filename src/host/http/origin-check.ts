import type { FastifyRequest } from 'fastify'
import { InvalidOrigin } from '../../sdk/index.js'

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Refuses a state-changing request sent by a page of another site (CSRF), before its
 * body is read. Browsers send `Origin` on such requests; older ones send
 * `Sec-Fetch-Site`. Clients that send neither (curl, scripts) are not browsers, so a
 * forged cross-site request cannot come from them.
 */
export function originCheck (allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins)
  return async function checkOrigin (request: FastifyRequest): Promise<void> {
    if (!STATE_CHANGING.has(request.method)) return
    const origin = request.headers.origin
    if (origin !== undefined) {
      if (!allowed.has(origin) && !sameOrigin(origin, request)) throw new InvalidOrigin()
      return
    }
    if (request.headers['sec-fetch-site'] === 'cross-site') throw new InvalidOrigin()
  }
}

function sameOrigin (origin: string, request: FastifyRequest): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // "null" (sandboxed frames, file: pages) and garbage
  }
  // Host only: behind a TLS proxy the scheme we see (http) differs from the browser's (https).
  return withoutDefaultPort(url.host) === withoutDefaultPort(request.host)
}

function withoutDefaultPort (host: string): string {
  return host.toLowerCase().replace(/:(80|443)$/, '')
}
