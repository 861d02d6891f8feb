import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BadRequest, InternalServerError, NotFound, PayloadTooLarge, ServiceUnavailable, isPlatformError, type PlatformError } from '../../sdk/index.js'
import { PG_QUERY_CANCELED } from '../database/errors.js'
import { MAX_PARAM_LENGTH } from './endpoint-route.js'

export interface ErrorAnswer {
  readonly status: number
  readonly body: { result: 'error', error: string } & Record<string, unknown>
  readonly headers: Record<string, string>
  /** Unexpected: logged in full, answered with a generic body. */
  readonly unexpected: boolean
}

const answer = (status: number, code: string, extras: Record<string, unknown> = {}, unexpected = false): ErrorAnswer =>
  ({ status, body: { result: 'error', error: code, ...extras }, headers: {}, unexpected })

/** A catalogue error's answer: its status, code, extras and headers. */
const known = (error: PlatformError, unexpected = false): ErrorAnswer => ({ ...answer(error.status, error.code, error.extras, unexpected), headers: error.headers })

const badBody = (what: string): ErrorAnswer => known(new BadRequest({ bodyValidationError: what }))

/** The answers that carry nothing of the request, made once: a flood of them costs no error object each. */
const frozen = (answer: ErrorAnswer): ErrorAnswer => Object.freeze({ ...answer, body: Object.freeze(answer.body), headers: Object.freeze(answer.headers) })
const BAD_REQUEST = frozen(known(new BadRequest()))
const NOT_FOUND = frozen(known(new NotFound()))
const PAYLOAD_TOO_LARGE = frozen(known(new PayloadTooLarge()))
const SERVICE_UNAVAILABLE = frozen(known(new ServiceUnavailable()))
/** The database stopped a statement at its time limit: it is busy, not broken; the client may ask again shortly. */
const STATEMENT_STOPPED = frozen({ ...known(new ServiceUnavailable()), headers: { 'retry-after': '1' } })
const INTERNAL_SERVER_ERROR = frozen(known(new InternalServerError(), true))

/** Errors a lost or refused database connection shows up as. */
const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'])

/**
 * Ajv's sentence for a request that failed its schema. A field that is not one is named
 * (a misspelt setting says which), when it is a short plain name: the client wrote it.
 */
function validationMessage (error: Partial<FastifyError>): string {
  const message = error.message ?? 'invalid request'
  const extra = error.validation?.[0]?.keyword === 'additionalProperties' ? error.validation[0].params.additionalProperty : undefined
  return typeof extra === 'string' && /^[\w.-]{1,64}$/.test(extra) ? `${message}: ${extra}` : message
}

/** The single translation from anything thrown to the error envelope (docs/api.md, "Errors"). */
function toErrorAnswer (error: unknown): ErrorAnswer {
  if (isPlatformError(error)) return known(error)
  const e = error as Partial<FastifyError> & { name?: string, message?: string }
  if (Array.isArray(e.validation)) return badBody(validationMessage(e))
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badBody('body must be sent as application/json')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return PAYLOAD_TOO_LARGE
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badBody('the body is shorter or longer than its Content-Length')
    // The router's own refusals (frameworkErrors): never echo the URL, an attacker wrote it.
    case 'FST_ERR_BAD_URL':
      return badBody('url must be a path of valid percent-encoded UTF-8')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return badBody(`params must not be longer than ${MAX_PARAM_LENGTH} characters`)
  }
  if (typeof e.code === 'string' && UNAVAILABLE.has(e.code)) return SERVICE_UNAVAILABLE
  if (e.code === PG_QUERY_CANCELED) return STATEMENT_STOPPED
  // PostgreSQL ends or refuses the session with a FATAL error whatever the reason (the
  // database not accepting connections, too many clients, a shutdown): it cannot be reached.
  const { severity } = error as { severity?: unknown }
  if (severity === 'FATAL' || severity === 'PANIC') return SERVICE_UNAVAILABLE
  if (e.name === 'KnexTimeoutError' || /Connection terminated|connection timeout|Client has encountered a connection error|Unable to acquire a connection/i.test(e.message ?? '')) {
    return SERVICE_UNAVAILABLE
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Any other client error Fastify raises while reading the request.
    return e.statusCode === 404 ? NOT_FOUND : BAD_REQUEST
  }
  return INTERNAL_SERVER_ERROR
}

/**
 * The client closed its connection while its body was being read (Node's `aborted`, code
 * ECONNRESET like a lost database connection): nobody is left to answer, and nothing is
 * wrong with this process.
 */
const clientWentAway = (error: unknown, request: FastifyRequest): boolean =>
  request.raw.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET' && (error as Error).message === 'aborted'

/**
 * A 503 is a condition, not a fault: setup not finished, the password hashing queue full,
 * the database out of reach, the process stopping. Each kind is logged when it begins,
 * in one line without a stack, then at most once a minute with how many more requests it
 * was answered to: a client that repeats it (or a crowd of them) cannot fill the log.
 */
export class ConditionLog {
  private readonly kinds = new Map<string, { quietUntil: number, more: number }>()

  constructor (private readonly everyMs = 60_000, private readonly now: () => number = Date.now) {}

  note (request: FastifyRequest, answer: ErrorAnswer, error: unknown): void {
    const cause = isPlatformError(error) ? undefined : causeOf(error)
    const kind = `${answer.body.error} ${cause ?? ''}`
    const now = this.now()
    const seen = this.kinds.get(kind)
    if (seen !== undefined && now < seen.quietUntil) {
      seen.more++
      return
    }
    // A few kinds at a time in practice; a bound all the same, since causes are text.
    if (this.kinds.size >= 100) this.kinds.clear()
    this.kinds.set(kind, { quietUntil: now + this.everyMs, more: 0 })
    const since = seen === undefined || seen.more === 0 ? {} : { answeredSinceLastLine: seen.more }
    request.log.warn({ error: answer.body.error, ...(cause === undefined ? {} : { cause }), ...since }, 'service unavailable')
  }
}

/** What a failure to reach the database says, in a few words of its own (never a stack, never values). */
function causeOf (error: unknown): string {
  const e = error as { code?: unknown, name?: unknown, message?: unknown }
  if (typeof e.code === 'string') return e.code
  return typeof e.message === 'string' ? e.message.slice(0, 120) : String(e.name ?? 'unknown')
}

/**
 * Answers `error` in the envelope; the error handler, and the router's refusals that
 * bypass it. Unexpected errors are logged in full; 503s through `conditions`.
 */
export function answerError (error: unknown, request: FastifyRequest, reply: FastifyReply, conditions: ConditionLog): void {
  if (clientWentAway(error, request)) {
    request.log.info('the client closed the connection before its request was read')
    void reply.code(400).send(badBody('the connection was closed before the body was read').body)
    return
  }
  const result = toErrorAnswer(error)
  if (result.unexpected) request.log.error({ err: error }, 'unexpected error')
  else if (result.status >= 500) conditions.note(request, result, error)
  void reply.code(result.status).headers(result.headers).send(result.body)
}

export function installErrorHandling (app: FastifyInstance, conditions: ConditionLog): void {
  app.setErrorHandler((error, request, reply) => answerError(error, request, reply, conditions))
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(NOT_FOUND.status).send(NOT_FOUND.body)
  })
}
