import type { ServerResponse } from 'node:http'
import type { Static, TSchema } from '@sinclair/typebox'
import { ENDPOINT, SUCCESSFUL, markSdkBase } from './brands.js'
import type { AddonContext, SessionUser } from './context.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
export type AccessClass = 'Api' | 'LoggedInApi' | 'PanelApi' | 'SetupApi'

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
 * A successful answer whose JSON the endpoint already holds, encoded (a cached body);
 * it must be an envelope with `"result":"ok"`. With `etag`, a request whose
 * `If-None-Match` matches is answered 304 with no body.
 */
export class SerializedSuccessful {
  readonly [SUCCESSFUL] = true
  constructor (readonly json: Buffer, readonly etag?: string) {}
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
  clearCookie (name: string, options?: Pick<CookieOptions, 'path'>): void
}

/** Everything an endpoint's `handle` receives for one request. */
export interface Call<S extends EndpointSchema, U extends SessionUser | null> {
  readonly body: Part<S['body'], undefined>
  readonly params: Part<S['params'], Record<string, string>>
  readonly query: Part<S['querystring'], Record<string, string>>
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** Resolved before `handle` runs; never null on LoggedInApi and PanelApi endpoints. */
  readonly user: U
  /** From `?locale=`, else `Accept-Language`, else `en`. */
  readonly locale: string
  /** The client's address (the proxy's view when the operator trusts a proxy). */
  readonly ip: string
  readonly ctx: AddonContext
  /** `https` when the request came over TLS (seen through a trusted proxy). */
  readonly protocol: 'http' | 'https'
  readonly reply: ReplyControl
  /** The first step of an endpoint's logic: throws NoPermission unless the user holds `key`. */
  requirePermission (key: string): void
  /** For long-lived answers (event streams): the raw Node response, taken over by the endpoint. */
  hijack (): ServerResponse
}

export type PublicCall<S extends EndpointSchema = EndpointSchema> = Call<S, SessionUser | null>
export type SignedInCall<S extends EndpointSchema = EndpointSchema> = Call<S, SessionUser>

export type Answer = Successful | SerializedSuccessful | void

/**
 * One HTTP endpoint. An addon ships endpoint classes in its `endpoints/` folder; the host
 * finds and registers every exported one. There is no registration call.
 */
export abstract class Endpoint<S extends EndpointSchema = EndpointSchema, U extends SessionUser | null = SessionUser | null> {
  static readonly [ENDPOINT] = true
  static {
    markSdkBase(this)
  }

  abstract readonly access: AccessClass
  abstract readonly method: HttpMethod
  /** Fastify route syntax, e.g. `/api/panel/shoutbox/:id`. Panel endpoints live under `/api/panel/`. */
  abstract readonly path: string
  abstract readonly schema: S
  /** Largest accepted body in bytes; the host's limit (64 KiB) when unset. */
  readonly bodyLimit?: number

  abstract handle (call: Call<S, U>): Promise<Answer>
}

/** Anyone may call it, once setup is done. */
export abstract class Api<S extends EndpointSchema = EndpointSchema> extends Endpoint<S, SessionUser | null> {
  static {
    markSdkBase(this)
  }

  readonly access = 'Api' as const
}

/** Any signed-in user. */
export abstract class LoggedInApi<S extends EndpointSchema = EndpointSchema> extends Endpoint<S, SessionUser> {
  static {
    markSdkBase(this)
  }

  readonly access = 'LoggedInApi' as const
}

/** Users whose role holds `panel.access` (administrators hold everything). */
export abstract class PanelApi<S extends EndpointSchema = EndpointSchema> extends Endpoint<S, SessionUser> {
  static {
    markSdkBase(this)
  }

  readonly access = 'PanelApi' as const
}

/** Only while the platform's setup is not finished. */
export abstract class SetupApi<S extends EndpointSchema = EndpointSchema> extends Endpoint<S, SessionUser | null> {
  static {
    markSdkBase(this)
  }

  readonly access = 'SetupApi' as const
}
