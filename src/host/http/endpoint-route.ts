import type {} from '@fastify/cookie'
import { LOCALE_COOKIE } from '../site-face/reader-locale.js'
import multipart from '@fastify/multipart'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import {
  BadRequest, NoPermission, NotLoggedIn, PayloadTooLarge, PlatformAlreadyInstalled, ServiceUnavailable, StreamedArray, UPLOAD_BYTES_CEILING, Viewer,
  isBytesAnswer, isSharedAnswer, isStreamedAnswer, isStreamedList, type UploadedFile,
  type AddonContext, type Answer, type Call, type SharedAnswer, type StreamedAnswer, type StreamedList, type CookieOptions, type Endpoint, type EventStream, type SessionUser
} from '../../sdk/index.js'
import { SUCCESSFUL } from '../../sdk/brands.js'
import { holdsNode } from '../identity/permissions.js'
import { bearerSecret } from '../identity/api-tokens.js'
import { hashToken } from '../identity/sessions.js'
import type { CachedAnswer } from './answer-cache.js'
import { responseSchemas } from './answers.js'
import { JSON_TYPE } from './headers.js'
import { streamedJson } from './streamed-json.js'

export const BODY_LIMIT = 64 * 1024

/** The longest path parameter the router matches; a longer one is refused before any route runs. */
export const MAX_PARAM_LENGTH = 200

/** Whose endpoint it is: the host, or an addon that may not have started. */
export interface EndpointOwner {
  readonly ctx: AddonContext
  isStarted (): boolean
}

/**
 * Registers one endpoint class as a Fastify route, the host's and an addon's alike: the
 * access check of its class runs on request (before the body is read), then schema
 * validation, then `handle`. An endpoint declaring a CachePolicy is answered from the
 * answer cache, which `handle` fills. A heavy answer is admitted (heavy-answers.ts) before
 * `handle` runs when the endpoint declares `heavy`, else when it is returned.
 */
export function registerEndpoint (scope: FastifyInstance, endpoint: Endpoint, owner: EndpointOwner): void {
  const schema: FastifySchema = {}
  if (endpoint.schema.body !== undefined) schema.body = endpoint.schema.body
  if (endpoint.schema.params !== undefined) schema.params = endpoint.schema.params
  if (endpoint.schema.querystring !== undefined) schema.querystring = endpoint.schema.querystring
  schema.response = responseSchemas(endpoint)
  Object.assign(schema, documentation(endpoint, owner.ctx.addonId))
  const update = endpoint.cache?.update
  const cached = endpoint.cache === undefined
    ? undefined
    : scope.answerCache.declare(endpoint.path, `${owner.ctx.addonId}:${endpoint.cache.topic}`,
      update === undefined ? undefined : (previous, notice) => update(previous, notice, owner.ctx), scope.log)

  if (endpoint.method === 'GET' && endpoint.access === 'Api') scope.embedCors.open(endpoint.path)
  if (endpoint.multipart === true) {
    // multipart/form-data is parsed for this route alone (in a context of its own): every
    // other endpoint still takes JSON only.
    scope.register(async inner => {
      // The one-click unsubscribe's form parser (json-body.ts) stands for multipart/form-data
      // everywhere else; here the upload's own parser takes its place.
      if (inner.hasContentTypeParser('multipart/form-data')) inner.removeContentTypeParser('multipart/form-data')
      await inner.register(multipart, { limits: { fileSize: UPLOAD_BYTES_CEILING, files: 1, parts: 4, fields: 3, fieldSize: 1024, headerPairs: 100 } })
      route(inner, endpoint, owner, schema, cached)
    })
    return
  }
  route(scope, endpoint, owner, schema, cached)
}

function route (scope: FastifyInstance, endpoint: Endpoint, owner: EndpointOwner, schema: FastifySchema, cached: CachedAnswer | undefined): void {
  scope.route({
    method: endpoint.method,
    url: endpoint.path,
    schema,
    bodyLimit: Math.min(endpoint.bodyLimit ?? BODY_LIMIT, BODY_LIMIT),
    onRequest: accessCheck(scope, endpoint, owner),
    handler: cached === undefined
      ? async (request, reply) => {
        const heavy = heavyAdmission(scope, request, reply)
        if (endpoint.heavy === true) heavy.admit()
        // An answer that depends on who asks (a room some may not read): never kept by a shared cache.
        if (endpoint.readsSession === true) {
          // Beside what may vary already (Origin, for the embedding sites: EmbedCors).
          const vary = reply.raw.getHeader('vary')
          void reply.header('cache-control', 'private, no-cache').header('vary', vary === undefined ? 'Cookie' : `${String(vary)}, Cookie`)
        }
        return send(reply, await handle(endpoint, makeCall(scope, request, reply, owner.ctx)), heavy)
      }
      : async (request, reply) => sendCached(request, reply, cached, () => endpoint.handle(makeCall(scope, request, reply, owner.ctx)), heavyAdmission(scope, request, reply))
  })
}

/** What `/api/openapi.json` shows of the route besides its schemas (read by @fastify/swagger). */
function documentation (endpoint: Endpoint, ownerId: string): Record<string, unknown> {
  const signedIn = endpoint.access === 'LoggedInApi' || endpoint.access === 'PanelApi'
  return {
    operationId: `${ownerId}.${endpoint.constructor.name}`,
    summary: endpoint.constructor.name,
    tags: [ownerId],
    // The session cookie; a PanelApi endpoint needs a role holding panel.access too.
    security: signedIn ? [{ session: endpoint.access === 'PanelApi' ? ['panel.access'] : [] }] : [],
    'x-access-class': endpoint.access
  }
}

function accessCheck (app: FastifyInstance, endpoint: Endpoint, owner: EndpointOwner) {
  const check = slowAccessCheck(app, endpoint, owner)
  // Callback style, with a synchronous fast path: a public endpoint of a started platform
  // (every list request) costs no promise here.
  return function checkAccess (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    if (endpoint.access === 'Api' && endpoint.readsSession !== true && app.addons.started && owner.isStarted()) {
      done()
      return
    }
    check(request).then(() => done(), done)
  }
}

function slowAccessCheck (app: FastifyInstance, endpoint: Endpoint, owner: EndpointOwner) {
  const { addons, identity } = app
  return async function checkAccess (request: FastifyRequest): Promise<void> {
    if (endpoint.access === 'SetupApi') {
      if (await identity.setup.isSetupDone()) throw new PlatformAlreadyInstalled()
      return
    }
    if (endpoint.availableBeforeSetup !== true) await addons.ensureStarted()
    if (!owner.isStarted()) throw new ServiceUnavailable()
    const bearer = bearerOf(request)
    if (bearer !== undefined) {
      // An API token: it stands for its user wherever a session would, never on what manages credentials.
      if (endpoint.access === 'Api' && endpoint.readsSession !== true) return
      const user = await tokenUser(identity, bearer, request.ip)
      if (endpoint.closedToTokens === true) throw new NoPermission()
      if (endpoint.access === 'PanelApi' && !holdsNode(user, 'panel.access')) throw new NoPermission()
      request.sessionUser = user
      return
    }
    const token = request.cookies[identity.sessionCookie.name]
    if (endpoint.access === 'Api') {
      // A public endpoint that asks who is signed in: whoever the session says, or nobody.
      if (endpoint.readsSession === true && token !== undefined) request.sessionUser = await identity.sessions.resolve(token)
      return
    }
    const user = token === undefined ? null : await identity.sessions.resolve(token)
    if (user === null) throw new NotLoggedIn()
    if (endpoint.access === 'PanelApi' && !holdsNode(user, 'panel.access')) throw new NoPermission()
    request.sessionUser = user
  }
}

const bearerOf = (request: FastifyRequest): string | undefined => bearerSecret(request.headers.authorization)

/**
 * The user an API token acts as. A wrong, expired or revoked token is answered 401 and
 * counted against the caller's address like a failed sign-in; past the address's free
 * failures a token this process does not remember is refused with 429 before it is even
 * looked up. One it remembers (resolved here before, still valid) costs no query and is
 * never a guess: a bot behind the same address as a guesser keeps working.
 */
async function tokenUser (identity: FastifyInstance['identity'], secret: string, ip: string): Promise<SessionUser> {
  const known = identity.tokens.remembered(secret)
  if (known !== undefined) return known
  await identity.signInThrottle.refuseIfWaiting(ip)
  const user = await identity.tokens.resolve(secret)
  if (user !== null) return user
  await identity.signInThrottle.failed(ip)
  throw new NotLoggedIn()
}

type AnyCall = Call<Endpoint['schema'], SessionUser | null> & { readonly opened?: EventStream }

/**
 * Runs `handle`. Should it fail after opening an event stream, the reply is already taken
 * over and no error can be answered: the stream is ended rather than left open for good.
 */
async function handle (endpoint: Endpoint, call: AnyCall): Promise<Answer> {
  try {
    return await endpoint.handle(call)
  } catch (error) {
    call.opened?.end()
    throw error
  }
}

/**
 * The caller's access policy: the request's user, renewed from the same credential — the
 * token (its limits kept) or the session — never from the account alone.
 */
function viewerOf (app: FastifyInstance, request: FastifyRequest): Viewer {
  const user = request.sessionUser
  if (user === null) return Viewer.visitor
  const { identity } = app
  const bearer = bearerOf(request)
  const session = request.cookies[identity.sessionCookie.name]
  return Viewer.of(user, async () => {
    if (bearer !== undefined) return await identity.tokens.resolve(bearer)
    return session === undefined ? null : await identity.sessions.resolve(session)
  })
}

function makeCall (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, ctx: AddonContext): AnyCall {
  const user = request.sessionUser
  let viewer: Viewer | undefined
  let opened: EventStream | undefined
  const query = (request.query ?? {}) as Record<string, string>
  return {
    body: request.body as undefined,
    params: request.params as Record<string, string>,
    query,
    headers: request.headers,
    cookies: request.cookies,
    user,
    get viewer () {
      return (viewer ??= viewerOf(app, request)) as never
    },
    ip: request.ip,
    ctx,
    get locale () {
      return app.i18n.resolveLocale(query.locale, request.headers['accept-language'], request.cookies?.[LOCALE_COOKIE])
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
      clearCookie (name: string, options?: Pick<CookieOptions, 'path' | 'secure'>) {
        // Attributes as it was set with: browsers refuse a __Host- cookie without Secure, even to clear it.
        void reply.clearCookie(name, { path: options?.path ?? '/', secure: options?.secure ?? request.protocol === 'https' })
      }
    },
    requirePermission (key: string) {
      if (user === null || !ctx.permissions.has(user, key)) throw new NoPermission()
    },
    async file (maxBytes: number): Promise<UploadedFile> {
      if (!request.isMultipart()) throw new BadRequest({ bodyValidationError: 'body must be multipart/form-data holding one file' })
      const limit = Math.min(maxBytes, UPLOAD_BYTES_CEILING)
      let part
      try {
        part = await request.file({ limits: { fileSize: limit } })
      } catch {
        throw new BadRequest({ bodyValidationError: 'body must be multipart/form-data holding one file' })
      }
      if (part === undefined) throw new BadRequest({ bodyValidationError: 'body must hold one file' })
      try {
        return { bytes: await part.toBuffer(), filename: part.filename, mimetype: part.mimetype }
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new PayloadTooLarge({ maxBytes: limit })
        throw new BadRequest({ bodyValidationError: 'the file could not be read' })
      }
    },
    openEventStream () {
      // Admitted (or refused with TooManyRequests, answered by the error handler) before
      // the reply is hijacked: a refusal is still an ordinary answer in the envelope.
      // What the stream was opened with, so that its end (a sign-out, a revoked token) ends the stream.
      const token = bearerOf(request) ?? request.cookies[app.identity.sessionCookie.name]
      opened = app.eventStreams.start(request.ip, () => {
        reply.hijack()
        return reply.raw
      }, user === null || token === undefined ? undefined : { hash: hashToken(token), userId: user.id })
      return opened
    },
    get opened () {
      return opened
    }
  }
}

function fieldsOf (answer: Answer): Record<string, unknown> {
  if (answer === undefined) return {}
  if (isBytesAnswer(answer)) throw new Error('a cached endpoint must not answer bytes')
  if ((answer as unknown as Record<symbol, unknown>)[SUCCESSFUL] !== true) throw new Error('an endpoint must return Successful')
  return answer.fields as Record<string, unknown>
}

/** Each SharedAnswer's bytes, made the first time it is answered (an answer is one endpoint's: one schema encodes it). */
const sharedEncodings = new WeakMap<SharedAnswer, string>()

/** Admits the request's answer as a heavy one, once (a second call does nothing). */
interface HeavyAdmission { admit (): void }

function heavyAdmission (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): HeavyAdmission {
  let admitted = false
  return {
    admit () {
      if (admitted) return
      app.heavyAnswers.admit(request.ip, reply.raw)
      admitted = true
    }
  }
}

function send (reply: FastifyReply, answer: Answer, heavy: HeavyAdmission): unknown {
  if (reply.sent) return reply
  if (isBytesAnswer(answer)) return reply.code(200).headers(answer.headers).type(answer.type).send(answer.bytes)
  if (isStreamedList(answer) || isStreamedAnswer(answer)) {
    heavy.admit()
    return sendStreamed(reply, answer)
  }
  if (isSharedAnswer(answer)) {
    let body = sharedEncodings.get(answer)
    if (body === undefined) sharedEncodings.set(answer, body = reply.serialize({ result: 'ok', ...fieldsOf(answer) }) as string)
    return reply.type(JSON_TYPE).send(body)
  }
  return { result: 'ok', ...fieldsOf(answer) }
}

/**
 * A StreamedList or StreamedAnswer as it goes out: the JSON of the whole answer, as
 * JSON.stringify would encode it, written while it is read (streamed-json.ts). The stream
 * reads the next batch only when the socket has taken the last (Fastify pipes it), so a
 * slow client holds one batch, not the answer. A batch that fails after the head has gone
 * ends the answer cut short (its last chunk never sent, so no client takes it for whole),
 * and is logged. An endpoint may have said how the answer is cached; by default, not kept.
 */
function sendStreamed (reply: FastifyReply, answer: StreamedList | StreamedAnswer): FastifyReply {
  const fields = isStreamedList(answer) ? { ...answer.fields, [answer.key]: new StreamedArray(answer.batches) } : answer.fields
  if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-cache')
  return reply.code(200).header('content-type', JSON_TYPE).send(Readable.from(streamedJson({ result: 'ok', ...fields }), { objectMode: false }))
}

async function sendCached (request: FastifyRequest, reply: FastifyReply, cached: CachedAnswer, handle: () => Promise<Answer>, heavy: HeavyAdmission): Promise<FastifyReply> {
  const kept = await cached.get(async () => {
    const answer = await handle()
    return isStreamedList(answer) ? answer : fieldsOf(answer)
  })
  if (isStreamedList(kept)) {
    heavy.admit()
    return sendStreamed(reply, kept)
  }
  cached.counts.served++
  const { status, head, body } = kept.answerFor(request.headers['if-none-match'])
  return reply.code(status).headers(head).send(body)
}
