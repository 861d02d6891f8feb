import type { Static, TSchema } from '@sinclair/typebox'
import { ENDPOINT, SHARED_ANSWER, STREAMED_LIST, SUCCESSFUL, markSdkBase } from './brands.js'
import type { EndpointAnswers } from './answers.js'
import type { AddonContext, SessionUser } from './context.js'
import type { MemberViewer, Viewer } from './viewer.js'
import type { StreamedAnswer } from './streamed.js'
import type { BytesAnswer, UploadedFile } from './pictures.js'

/** The HTTP methods and access classes an endpoint may declare (the loader and the packager read these). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export const ACCESS_CLASSES = ['Api', 'LoggedInApi', 'PanelApi', 'SetupApi'] as const

export type HttpMethod = typeof HTTP_METHODS[number]
export type AccessClass = typeof ACCESS_CLASSES[number]

/** TypeBox schemas of the parts of a request an endpoint reads. */
export interface EndpointSchema {
  readonly body?: TSchema
  readonly params?: TSchema
  readonly querystring?: TSchema
}

type Part<T, Otherwise> = T extends TSchema ? Static<T> : Otherwise

/** A successful answer: `{"result":"ok", ...fields}` with HTTP 200. */
export class Successful<F extends object = object> {
  readonly [SUCCESSFUL] = true
  readonly fields: F

  constructor (fields?: F) {
    this.fields = fields ?? ({} as F)
  }
}

/**
 * A successful answer made once and given as it is to many requests (one kept in memory
 * until a change, such as a visitor's first load): the host encodes it once, by the
 * endpoint's answer schema, and sends those bytes to every request answered with this
 * same object. Its fields must not change once it has been answered: a new answer is a
 * new object.
 */
export class SharedAnswer<F extends object = object> extends Successful<F> {
  readonly [SHARED_ANSWER] = true
}

/** Whether `answer` is a SharedAnswer, from this copy of the SDK or an addon's own. */
export function isSharedAnswer (answer: unknown): answer is SharedAnswer {
  return typeof answer === 'object' && answer !== null && (answer as Record<symbol, unknown>)[SHARED_ANSWER] === true
}

/**
 * A successful answer too long to hold in memory at once: `{"result":"ok", ...fields,
 * [key]: [...]}` with HTTP 200, whose array is read batch by batch while it is sent, at
 * the pace the client reads it. Each request that gets it calls `batches` anew. It
 * carries no ETag, and the host never keeps it, even for an endpoint with a `cache`
 * policy: return it only for an answer too big to keep. It is a heavy answer, admitted
 * as a StreamedAnswer is (at most two at a time per client).
 */
export class StreamedList {
  readonly [STREAMED_LIST] = true

  /**
   * @param key the array's field, written last
   * @param batches the array's items, a batch at a time; the next batch is asked for only once the one before is on its way
   * @param fields the answer's other fields, written before the array
   */
  constructor (readonly key: string, readonly batches: () => AsyncIterable<readonly unknown[]>, readonly fields: Readonly<Record<string, unknown>> = {}) {}
}

/** Whether `answer` is a StreamedList, from this copy of the SDK or an addon's own. */
export function isStreamedList (answer: unknown): answer is StreamedList {
  return typeof answer === 'object' && answer !== null && (answer as Record<symbol, unknown>)[STREAMED_LIST] === true
}

/**
 * Declares that a public GET endpoint's answer may be kept and served again to anyone.
 * The host keeps it, answers `If-None-Match` with 304 and serves it before any endpoint
 * code runs. Each change notice on the owner's cluster `topic` (from any host process)
 * is applied to the kept answer by `update`, or, without `update`, drops it; `handle`
 * then runs again to make it anew. `handle` must not read the request (user, headers,
 * cookies, locale, query): what it answers is served to everyone.
 */
export interface CachePolicy {
  readonly topic: string
  /**
   * The next answer's fields from the kept ones and a notice, without the database, so a
   * busy board keeps its fast path; `undefined` whenever it cannot be sure, and the answer
   * is made anew. It must give exactly what `handle` would give after the change. It runs
   * only while an answer is kept (and is trusted for a minute at most): anything it must
   * learn from every notice, it learns through `ctx.cluster.subscribe`. Returning
   * `previous` itself says the change left this answer as it was: it is kept as encoded.
   */
  readonly update?: (previous: Readonly<Record<string, unknown>>, notice: string, ctx: AddonContext) => Record<string, unknown> | undefined
}

export interface CookieOptions {
  readonly maxAgeSeconds?: number
  readonly httpOnly?: boolean
  readonly sameSite?: 'lax' | 'strict'
  readonly secure?: boolean
  readonly path?: string
}

/** What an endpoint may add to its answer besides the body. */
export interface ReplyControl {
  header (name: string, value: string): void
  setCookie (name: string, value: string, options: CookieOptions): void
  clearCookie (name: string, options?: Pick<CookieOptions, 'path' | 'secure'>): void
}

/**
 * An open Server-Sent Events answer. The host writes its head, a comment every 15 s,
 * and ends it when the host stops; a client that falls too far behind is cut off.
 */
export interface EventStream {
  /** Writes one frame made by `eventFrame` (format an event once, write it to every stream). */
  write (frame: EventFrame): void
  end (): void
  readonly closed: boolean
  onClose (listener: () => void): void
}

/**
 * One frame of an event stream (an event, or a comment), formatted and encoded once:
 * written to ten thousand streams, it costs ten thousand socket writes and nothing more.
 */
export class EventFrame {
  readonly bytes: Buffer

  constructor (readonly text: string) {
    this.bytes = Buffer.from(text)
  }
}

/** One Server-Sent Event, formatted. `data` is sent on one line: pass JSON. */
export function eventFrame (id: number, event: string, data: string): EventFrame {
  return new EventFrame(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`)
}

/** Everything an endpoint's `handle` receives for one request. */
export interface Call<S extends EndpointSchema, U extends SessionUser | null, C extends AddonContext = AddonContext> {
  readonly body: Part<S['body'], undefined>
  readonly params: Part<S['params'], Record<string, string>>
  readonly query: Part<S['querystring'], Record<string, string>>
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The request's cookies, by name. */
  readonly cookies: Readonly<Record<string, string | undefined>>
  /** Resolved before `handle` runs; never null on LoggedInApi and PanelApi endpoints. */
  readonly user: U
  /** What the caller may see, from the same session or token as `user`: every path that hands out data asks it. */
  readonly viewer: U extends SessionUser ? MemberViewer : Viewer
  /** From `?locale=`, else `Accept-Language`, else `en`. */
  readonly locale: string
  /** The client's address (the proxy's view when the operator trusts a proxy). */
  readonly ip: string
  readonly ctx: C
  /** `https` when the request came over TLS (seen through a trusted proxy). */
  readonly protocol: 'http' | 'https'
  readonly reply: ReplyControl
  /** The first step of an endpoint's logic: throws NoPermission unless the user holds `key`. */
  requirePermission (key: string): void
  /**
   * Answers with an event stream instead of JSON; `handle` then returns nothing. Throws
   * TooManyRequests (answered as usual) when the client, or the process, already holds
   * as many open streams as the host allows: call it before writing anything else.
   */
  openEventStream (): EventStream
  /**
   * The request's one file (endpoints that declare `multipart`), read whole once it is
   * asked for — so the endpoint checks who may upload before a byte is read. A request
   * that is not multipart, or holds no file → 400 BAD_REQUEST; a file over `maxBytes` →
   * 413 PAYLOAD_TOO_LARGE.
   */
  file (maxBytes: number): Promise<UploadedFile>
}

export type PublicCall<S extends EndpointSchema = EndpointSchema, C extends AddonContext = AddonContext> = Call<S, SessionUser | null, C>
export type SignedInCall<S extends EndpointSchema = EndpointSchema, C extends AddonContext = AddonContext> = Call<S, SessionUser, C>

export type Answer = Successful | StreamedList | StreamedAnswer | BytesAnswer | void

/**
 * One HTTP endpoint. An addon ships endpoint classes in its `endpoints/` folder; the host
 * finds and registers every exported one. There is no registration call. The host's own
 * endpoints are written the same way, in `src/host/endpoints/`.
 */
export abstract class Endpoint<S extends EndpointSchema = EndpointSchema, U extends SessionUser | null = SessionUser | null, C extends AddonContext = AddonContext> {
  static readonly [ENDPOINT] = true
  static {
    markSdkBase(this)
  }

  abstract readonly access: AccessClass
  abstract readonly method: HttpMethod
  /** Fastify route syntax, e.g. `/api/panel/shoutbox/:id`. Panel endpoints live under `/api/panel/`. */
  abstract readonly path: string
  abstract readonly schema: S
  /**
   * What it answers: the success body's schema (with an example) and the errors of its own
   * logic. The host serialises with it and documents it in `/api/openapi.json`; an
   * endpoint without it is served, but the document shows no answer for it (and the
   * repository's test of the document fails, naming the route).
   */
  readonly answers?: EndpointAnswers
  /** Largest accepted body in bytes; the host's limit (64 KiB) when unset. */
  readonly bodyLimit?: number
  /** Public GET endpoints only: the answer is kept and served from memory (see CachePolicy). */
  readonly cache?: CachePolicy
  /**
   * Public endpoints only: `user` is the signed-in user when the request carries a valid
   * session, else null (nothing is refused). Without it a public endpoint's `user` is
   * always null, and no session is looked up for it.
   */
  readonly readsSession?: boolean
  /**
   * The host's own endpoints only (setup status, health): answers before setup is done.
   * The loader refuses an addon endpoint that declares it: addons have no tables then.
   */
  readonly availableBeforeSetup?: boolean
  /**
   * Refused (403 NO_PERMISSION) to a caller using an API token, whatever its permissions:
   * what manages credentials, accounts, roles, settings or webhooks takes a signed-in
   * person, never a script.
   */
  readonly closedToTokens?: boolean
  /**
   * Every answer is a heavy one (an export): the request is admitted as one before
   * `handle` runs — at most two at a time per client, else 429 TOO_MANY_REQUESTS with
   * Retry-After, before anything is read or logged — and holds its place until its answer
   * has gone or its client has. A StreamedList or StreamedAnswer from any other endpoint
   * is admitted the same way when it is returned.
   */
  readonly heavy?: boolean
  /**
   * The body is `multipart/form-data` holding one file, read through `call.file()` (up to
   * UPLOAD_BYTES_CEILING), never parsed as JSON; a JSON body is refused by `call.file()`.
   */
  readonly multipart?: boolean

  abstract handle (call: Call<S, U, C>): Promise<Answer>
}

/** Anyone may call it, once setup is done. */
export abstract class Api<S extends EndpointSchema = EndpointSchema, C extends AddonContext = AddonContext> extends Endpoint<S, SessionUser | null, C> {
  static {
    markSdkBase(this)
  }

  readonly access = 'Api' as const
}

/** Any signed-in user. */
export abstract class LoggedInApi<S extends EndpointSchema = EndpointSchema, C extends AddonContext = AddonContext> extends Endpoint<S, SessionUser, C> {
  static {
    markSdkBase(this)
  }

  readonly access = 'LoggedInApi' as const
}

/** Users whose role holds `panel.access` (administrators hold everything). */
export abstract class PanelApi<S extends EndpointSchema = EndpointSchema, C extends AddonContext = AddonContext> extends Endpoint<S, SessionUser, C> {
  static {
    markSdkBase(this)
  }

  readonly access = 'PanelApi' as const
}

/** Only while the platform's setup is not finished. */
export abstract class SetupApi<S extends EndpointSchema = EndpointSchema, C extends AddonContext = AddonContext> extends Endpoint<S, SessionUser | null, C> {
  static {
    markSdkBase(this)
  }

  readonly access = 'SetupApi' as const
}
