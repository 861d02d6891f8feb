import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isPlatformError, errorCode } from '../../sdk/index.js'
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

const badBody = (what: string): ErrorAnswer => answer(400, 'BAD_REQUEST', { bodyValidationError: what })

/** Errors a lost or refused database connection shows up as. */
const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'])

/** The single translation from anything thrown to the error envelope (docs/api.md, "Errors"). */
function toErrorAnswer (error: unknown): ErrorAnswer {
  if (isPlatformError(error)) {
    return { ...answer(error.status, error.code, error.extras), headers: error.headers }
  }
  const e = error as Partial<FastifyError> & { name?: string, message?: string }
  if (Array.isArray(e.validation)) return badBody(e.message ?? 'invalid request')
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badBody('body must be sent as application/json')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return answer(413, 'PAYLOAD_TOO_LARGE')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badBody('the body is shorter or longer than its Content-Length')
    // The router's own refusals (frameworkErrors): never echo the URL, an attacker wrote it.
    case 'FST_ERR_BAD_URL':
      return badBody('url must be a path of valid percent-encoded UTF-8')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return badBody(`params must not be longer than ${MAX_PARAM_LENGTH} characters`)
  }
  if (typeof e.code === 'string' && UNAVAILABLE.has(e.code)) return answer(503, 'SERVICE_UNAVAILABLE')
  if (e.name === 'KnexTimeoutError' || /Connection terminated|connection timeout|Client has encountered a connection error|Unable to acquire a connection/i.test(e.message ?? '')) {
    return answer(503, 'SERVICE_UNAVAILABLE')
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Any other client error Fastify raises while reading the request.
    return answer(e.statusCode === 404 ? 404 : 400, e.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST')
  }
  return answer(500, errorCode('InternalServerError'), {}, true)
}

/**
 * The client closed its connection while its body was being read (Node's `aborted`, code
 * ECONNRESET like a lost database connection): nobody is left to answer, and nothing is
 * wrong with this process.
 */
const clientWentAway = (error: unknown, request: FastifyRequest): boolean =>
  request.raw.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET' && (error as Error).message === 'aborted'

/** Answers `error` in the envelope; the error handler, and the router's refusals that bypass it. */
export function answerError (error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (clientWentAway(error, request)) {
    request.log.info('the client closed the connection before its request was read')
    void reply.code(400).send(badBody('the connection was closed before the body was read').body)
    return
  }
  const result = toErrorAnswer(error)
  if (result.unexpected) request.log.error({ err: error }, 'unexpected error')
  else if (result.status >= 500) request.log.warn({ err: error }, 'service unavailable')
  void reply.code(result.status).headers(result.headers).send(result.body)
}

export function installErrorHandling (app: FastifyInstance): void {
  app.setErrorHandler(answerError)
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send({ result: 'error', error: 'NOT_FOUND' })
  })
}
