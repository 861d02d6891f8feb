import { Validator } from '@seriousme/openapi-schema-validator'
import t from 'tap'
import type { Endpoint } from '../../src/sdk/index.js'
import { documentedPath } from '../../src/host/plugins/openapi.js'
import { build, setUp, type App } from '../helpers/app.js'
import { documentedNames, openApiDocument, registeredRoutes, type Operation } from '../helpers/openapi.js'

/** Issue 17: GET /api/openapi.json is a valid OpenAPI 3.1 document of every route, made from the routes themselves. */

/** Every endpoint instance the app registered, host and addons, by "METHOD url". */
function endpointsOf (app: App): Map<string, Endpoint> {
  const all = [...app.addons.host.endpoints, ...[...app.addons.runtimes.values()].flatMap(runtime => runtime.addon.endpoints)]
  return new Map(all.map(({ instance }) => [`${instance.method} ${instance.path}`, instance]))
}

/** A route's URL as OpenAPI writes it: `:id` (and a regex after it) → `{id}`, panel paths as the panel calls them. */
const openApiPath = (url: string): string => documentedPath(url).replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}')

/** JSON as it is sent (TypeBox's symbol keys dropped). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** A schema as OpenAPI 3.1 writes it: `const: x` as `enum: [x]` (the same constraint). */
const documentedForm = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(documentedForm)
  if (typeof value !== 'object' || value === null) return value
  const { const: only, ...rest } = value as Record<string, unknown>
  const mapped = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, documentedForm(item)]))
  return only === undefined ? mapped : { ...mapped, enum: [only] }
}

t.test('the document is valid OpenAPI 3.1 (checked by an OpenAPI validator), before and after setup', async t => {
  const app = await build(t)
  const before = await app.inject({ url: '/api/openapi.json' })
  t.equal(before.statusCode, 200)
  t.equal(before.headers['content-type'], 'application/json; charset=utf-8')
  await setUp(app)
  const document = await openApiDocument(app)
  t.same(document, before.json(), 'the same document after setup')
  t.equal(document.openapi, '3.1.0')
  const validator = new Validator()
  const result = await validator.validate(document as unknown as Parameters<Validator["validate"]>[0])
  t.same(result.errors ?? [], [], 'no validation errors')
  t.equal(result.valid, true)
  t.equal(validator.version, '3.1')
})

t.test('every registered API route is in the document with its request schemas, its answer and its errors', async t => {
  const app = await build(t)
  await setUp(app)
  const document = await openApiDocument(app)
  const endpoints = endpointsOf(app)
  const routes = documentedNames(registeredRoutes(app).filter(route => route.url.startsWith('/api/') && route.method !== 'HEAD'),
    (method, url) => document.paths[openApiPath(url)]?.[method.toLowerCase()] !== undefined)
  t.ok(routes.length >= 30, `the app's routes were found (${routes.length})`)
  for (const route of routes) {
    const name = `${route.method} ${route.url}`
    const operation: Operation | undefined = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()]
    if (operation === undefined) {
      t.fail(`${name} is not in the document`)
      continue
    }
    const ok = operation.responses['200']
    const media = ok?.content?.['application/json'] ?? ok?.content?.['text/event-stream'] ?? ok?.content?.['image/webp']
    t.ok(media?.schema !== undefined, `${name} documents its success answer (declare \`answers = { ok: okAnswer(…) }\` on its endpoint class)`)
    const endpoint = endpoints.get(name)
    if (endpoint === undefined) {
      t.equal(route.url, '/api/openapi.json', `${name}: the only API route that is not an endpoint class is the document itself`)
      continue
    }
    t.equal(operation['x-access-class'], endpoint.access, `${name}: its access class`)
    const signedIn = endpoint.access === 'LoggedInApi' || endpoint.access === 'PanelApi'
    t.same(operation.security, signedIn ? [{ session: endpoint.access === 'PanelApi' ? ['panel.access'] : [] }] : [], `${name}: the session cookie as its security requirement`)
    if (endpoint.answers !== undefined && media !== undefined) {
      // The example moves from the schema to the media type (`example`), as OpenAPI has it.
      const { description: _ignored, examples, ...declared } = plain(endpoint.answers.ok) as Record<string, unknown>
      const { description: _also, examples: _kept, ...shown } = media.schema as Record<string, unknown>
      t.same(shown, documentedForm(declared), `${name}: the success schema is the endpoint's`)
      t.same(media.example ?? media.schema?.examples?.[0], (examples as unknown[] | undefined)?.[0], `${name}: its example`)
    }
    const { body, params, querystring } = endpoint.schema
    if (body !== undefined) {
      t.same(operation.requestBody?.content?.['application/json']?.schema, plain(body), `${name}: its body schema`)
    } else {
      t.equal(operation.requestBody, undefined, `${name}: no body`)
    }
    for (const [where, schema] of [['path', params], ['query', querystring]] as const) {
      const documented = (operation.parameters ?? []).filter(p => p.in === where)
      const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}
      t.same(documented.map(p => p.name).sort(), Object.keys(properties).sort(), `${name}: its ${where} parameters`)
      for (const parameter of documented) {
        const { description: _d, ...declared } = plain(properties[parameter.name]) as Record<string, unknown>
        const { description: _e, ...shown } = parameter.schema ?? {}
        t.same(shown, declared, `${name}: the schema of ${where} parameter ${parameter.name}`)
      }
    }
    const errors = Object.entries(operation.responses).filter(([status]) => /^[45]/.test(status))
    t.ok(errors.some(([status]) => status === '500'), `${name}: its error answers are documented`)
    for (const [status, response] of errors) {
      const schema = response.content?.['application/json']?.schema as { properties?: { error?: { enum?: string[] } } } | undefined
      t.ok((schema?.properties?.error?.enum ?? []).length > 0, `${name}: the codes of ${status}`)
    }
  }
  const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map(method => `${method.toUpperCase()} ${path}`))
  t.same(documented.sort(), routes.map(route => `${route.method} ${openApiPath(route.url)}`).sort(), 'and nothing else: pages and files are not operations')
})

t.test('each endpoint documents the error codes it can answer: its access class, its request and its own logic', async t => {
  const app = await build(t)
  const document = await openApiDocument(app)
  const codes = (path: string, method: string): Record<string, string[]> => Object.fromEntries(
    Object.entries(document.paths[path]![method]!.responses)
      .filter(([status]) => /^[45]/.test(status))
      .map(([status, response]) => [status, (response.content!['application/json']!.schema as { properties: { error: { enum: string[] } } }).properties.error.enum]))
  t.same(codes('/api/shoutbox/list', 'get'), {
    429: ['TOO_MANY_REQUESTS'],
    500: ['INTERNAL_SERVER_ERROR'],
    503: ['INSTALLATION_REQUIRED', 'SERVICE_UNAVAILABLE']
  }, 'a public GET: setup, the service, and a third unbounded list at once')
  t.same(codes('/api/shoutbox', 'post'), {
    400: ['BAD_REQUEST', 'MESSAGE_TOO_LONG', 'WATCHED_WORD'],
    401: ['NOT_LOGGED_IN'],
    403: ['EMAIL_NOT_VERIFIED', 'INVALID_ORIGIN', 'MUTED', 'NO_PERMISSION'],
    409: ['DUPLICATE_SHOUT'],
    413: ['PAYLOAD_TOO_LARGE'],
    429: ['TOO_MANY_REQUESTS'],
    500: ['INTERNAL_SERVER_ERROR'],
    503: ['INSTALLATION_REQUIRED', 'SERVICE_UNAVAILABLE']
  }, 'a member\'s post: its class, its body, mutes and the flood rules')
  t.same(codes('/panel/api/users/{id}', 'put'), {
    400: ['BAD_REQUEST', 'UNKNOWN_ROLE'],
    401: ['NOT_LOGGED_IN'],
    403: ['INVALID_ORIGIN', 'NO_PERMISSION'],
    404: ['NOT_FOUND'],
    409: ['LAST_ADMIN'],
    413: ['PAYLOAD_TOO_LARGE'],
    500: ['INTERNAL_SERVER_ERROR'],
    503: ['INSTALLATION_REQUIRED', 'SERVICE_UNAVAILABLE']
  }, 'a panel path, as the panel calls it')
  t.same(codes('/api/setup/finish', 'post'), {
    400: ['BAD_REQUEST'],
    403: ['INVALID_ORIGIN', 'INVALID_SETUP_TOKEN'],
    409: ['EMAIL_TAKEN', 'PLATFORM_ALREADY_INSTALLED', 'USERNAME_TAKEN'],
    413: ['PAYLOAD_TOO_LARGE'],
    500: ['INTERNAL_SERVER_ERROR'],
    503: ['SERVICE_UNAVAILABLE']
  }, 'SetupApi: refused after setup; never INSTALLATION_REQUIRED')
  t.equal(document.paths['/api/panel/users/{id}'], undefined, 'panel endpoints appear once, under /panel/api/')
  t.same(document.components?.securitySchemes, {
    session: { type: 'apiKey', in: 'cookie', name: 'shoutbox_session', description: 'The session cookie set by sign-in (`POST /api/auth/login`)' }
  })
})
