import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * CORS for the sites in `EMBED_ORIGINS`: their pages' scripts (`embed.js`) may read the
 * public endpoints (GET, access class `Api`) and the event streams among them — nothing
 * else, and never with credentials: no answer says `Access-Control-Allow-Credentials`, so
 * a browser refuses to show a script a request that carried cookies. Simple GETs only (an
 * EventSource sends no preflight); a request that needs one is refused by the browser.
 *
 * It runs first on every request, before the answer cache and Fastify, and writes its
 * headers on the raw answer, so an answer from memory, from a handler or an event
 * stream's head carries them alike.
 */
export class EmbedCors {
  private readonly origins: ReadonlySet<string>
  private readonly paths: RegExp[] = []

  constructor (origins: readonly string[]) {
    this.origins = new Set(origins)
  }

  /** Whether any site may embed the board. */
  get enabled (): boolean {
    return this.origins.size > 0
  }

  /** Opens a public GET route (`/api/shoutbox/rooms/:slug/shouts`) to the embedding sites. */
  open (route: string): void {
    if (!this.enabled) return
    const pattern = route.split('/').map(part => part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/')
    this.paths.push(new RegExp(`^${pattern}$`))
  }

  /** Writes the CORS headers of `request`'s answer, if it has any. */
  apply (request: IncomingMessage, response: ServerResponse): void {
    if (this.paths.length === 0 || (request.method !== 'GET' && request.method !== 'HEAD')) return
    const url = request.url ?? '/'
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    if (!this.paths.some(pattern => pattern.test(path))) return
    // The answer differs by Origin: a shared cache must keep one per origin.
    response.setHeader('vary', 'Origin')
    const origin = request.headers.origin
    if (origin !== undefined && this.origins.has(origin)) response.setHeader('access-control-allow-origin', origin)
  }
}
