import { Type, type TSchema } from '@sinclair/typebox'
import {
  BadRequest, EVENT_STREAM_TYPE, InstallationRequired, InternalServerError, InvalidOrigin, NoPermission, NotLoggedIn,
  PayloadTooLarge, PlatformAlreadyInstalled, ServiceUnavailable, type Endpoint, type ErrorClass
} from '../../sdk/index.js'

/**
 * The error envelope, declared once: `{"result":"error","error":"<CODE>", …extras}`.
 * Extras other than `bodyValidationError` are the error's own (`maxMessageLength`,
 * `database`, …): the envelope lets them through.
 */
export const ErrorEnvelopeSchema = Type.Object({
  result: Type.Literal('error'),
  error: Type.String({ description: 'the thrown class\'s name in UPPER_SNAKE form' }),
  bodyValidationError: Type.Optional(Type.String({ description: 'what was wrong with the request, when its content was' }))
}, { additionalProperties: true })

/** One error an endpoint can answer. */
export interface DocumentedError {
  readonly status: number
  readonly code: string
}

function errorOf (cls: ErrorClass): DocumentedError {
  // Status and code are the instance's (an addon's bundled SDK makes its own classes); the
  // constructors' arguments only fill extras, which are not needed here.
  const instance = new (cls as unknown as new () => { status: number, code: string })()
  return { status: instance.status, code: instance.code }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Every error the endpoint can answer: those of its access class, its body and parameters
 * (the steps before its logic, docs/api.md "The order of checks"), and those it declares.
 */
export function errorsOf (endpoint: Endpoint): DocumentedError[] {
  const classes: ErrorClass[] = [InternalServerError, ServiceUnavailable]
  if (endpoint.access === 'SetupApi') classes.push(PlatformAlreadyInstalled)
  else if (endpoint.availableBeforeSetup !== true) classes.push(InstallationRequired)
  if (endpoint.access === 'LoggedInApi' || endpoint.access === 'PanelApi') classes.push(NotLoggedIn)
  if (endpoint.access === 'PanelApi') classes.push(NoPermission)
  if (STATE_CHANGING.has(endpoint.method)) classes.push(InvalidOrigin, BadRequest, PayloadTooLarge)
  const { body, params, querystring } = endpoint.schema
  if (body !== undefined || params !== undefined || querystring !== undefined) classes.push(BadRequest)
  classes.push(...endpoint.answers?.errors ?? [])
  const seen = new Map<string, DocumentedError>()
  for (const error of classes.map(errorOf)) seen.set(`${error.status} ${error.code}`, error)
  return [...seen.values()].sort((a, b) => a.status - b.status || a.code.localeCompare(b.code))
}

/**
 * Fastify's `schema.response` for an endpoint: its success body (serialised with it) and,
 * per error status, the envelope with the codes that status can carry.
 */
export function responseSchemas (endpoint: Endpoint): Record<string, unknown> {
  const response: Record<string, unknown> = {}
  const ok = endpoint.answers?.ok
  if (ok !== undefined) response['200'] = successResponse(ok)
  if (endpoint.cache !== undefined) {
    response['304'] = { description: 'Not Modified: `If-None-Match` holds the answer\'s ETag (no body)', type: 'null' }
  }
  const byStatus = new Map<number, string[]>()
  for (const { status, code } of errorsOf(endpoint)) byStatus.set(status, [...byStatus.get(status) ?? [], code])
  for (const [status, codes] of byStatus) response[String(status)] = errorResponse(codes)
  return response
}

function successResponse (ok: TSchema): unknown {
  if (ok.contentMediaType === EVENT_STREAM_TYPE) {
    return { description: ok.description ?? 'an event stream', content: { [EVENT_STREAM_TYPE]: { schema: ok } } }
  }
  // Bytes (a picture): described by their media type, never serialised as JSON.
  if (typeof ok.contentMediaType === 'string') {
    return { description: ok.description ?? 'bytes', content: { [ok.contentMediaType]: { schema: ok } } }
  }
  return { ...ok, description: ok.description ?? 'Successful: `{"result":"ok", …}`' }
}

function errorResponse (codes: readonly string[]): TSchema {
  return {
    ...ErrorEnvelopeSchema,
    properties: { ...ErrorEnvelopeSchema.properties, error: { type: 'string', enum: codes } },
    description: codes.join(', ')
  }
}
