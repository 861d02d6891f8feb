import type { FastifyInstance } from 'fastify'

/** The parts of an OpenAPI 3.1 document the tests read. */
export interface MediaType { schema?: Record<string, unknown> & { examples?: unknown[] }, example?: unknown }
export interface Operation {
  operationId?: string
  security?: unknown
  'x-access-class'?: string
  parameters?: Array<{ name: string, in: string, schema?: Record<string, unknown> }>
  requestBody?: { content?: Record<string, MediaType> }
  responses: Record<string, { description?: string, content?: Record<string, MediaType> }>
}
export interface OpenApiDocument {
  openapi: string
  info: { title: string, version: string }
  paths: Record<string, Record<string, Operation>>
  components?: { securitySchemes?: Record<string, unknown> }
}

export async function openApiDocument (app: FastifyInstance): Promise<OpenApiDocument> {
  const response = await app.inject({ url: '/api/openapi.json' })
  if (response.statusCode !== 200) throw new Error(`GET /api/openapi.json: ${response.statusCode} ${response.body}`)
  return response.json()
}

/**
 * Every route the app registered, read from Fastify's own router (`printRoutes`), not from
 * the document or the endpoint lists: a route added any other way is found too.
 */
export function registeredRoutes (app: FastifyInstance): Array<{ method: string, url: string }> {
  const routes: Array<{ method: string, url: string }> = []
  // Each line: tree drawing, a segment of the path, then its methods: "│   ├── list (GET, HEAD)".
  const parents: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)(?:[├└]── )?(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (match === null || match[2] === '') continue
    const depth = match[1]!.length / 4
    parents.length = depth
    const url = (parents[depth - 1] ?? '') + match[2]
    parents[depth] = url
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url })
  }
  return routes
}

/**
 * The routes with the names the document gives them: Fastify's tree prints a segment that
 * two routes name differently as one, `:a|:b` (`POST /direct/:username` beside
 * `GET /direct/:id/shouts`); each route takes the alternative its method is documented under.
 */
export function documentedNames (routes: ReadonlyArray<{ method: string, url: string }>, documented: (method: string, url: string) => boolean): Array<{ method: string, url: string }> {
  return routes.map(route => {
    if (!route.url.includes('|')) return route
    let urls = ['']
    for (const segment of route.url.split('/').slice(1)) urls = urls.flatMap(url => segment.split('|').map(name => `${url}/${name}`))
    return { ...route, url: urls.find(url => documented(route.method, url)) ?? route.url }
  })
}
