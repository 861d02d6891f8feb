import type http from 'node:http'
import type { Duplex } from 'node:stream'
import { BadRequest, RequestTimeout } from '../../sdk/index.js'
import { EVERY_ANSWER, JSON_TYPE } from './headers.js'

/**
 * Answers made before Fastify runs, for requests it must never see: bytes Node could not
 * parse as HTTP, and an HTTP/1.1 request without `Host`. Both are in the envelope, with
 * the headers of every answer, and close the connection: what follows on it cannot be trusted.
 */
/** The codes of what is refused here, from the catalogue: made once, not per refused connection. */
const BAD_REQUEST = new BadRequest().code
const REQUEST_TIMEOUT = new RequestTimeout().code

function closingError (code: string, extras: Record<string, string> = {}): { headers: Record<string, string | number>, body: string } {
  const body = JSON.stringify({ result: 'error', error: code, ...extras })
  return { body, headers: { ...EVERY_ANSWER, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), connection: 'close' } }
}

/** Fastify's `clientErrorHandler`: Node's parser refused the bytes, so the answer is written to the socket by hand. */
export function answerClientError (error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const [status, reason, code] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', BAD_REQUEST]
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', REQUEST_TIMEOUT] : [400, 'Bad Request', BAD_REQUEST]
  const { headers, body } = closingError(code)
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`)
}

/**
 * HTTP/1.1 requires `Host` (RFC 9112, section 3.2). Node would refuse its absence with a bare 400
 * of its own, so the server is made with `requireHostHeader: false` and refuses it here.
 * HTTP/1.0 has no such rule: its requests pass.
 */
export function refusedWithoutHost (request: http.IncomingMessage, response: http.ServerResponse): boolean {
  if (request.httpVersion !== '1.1' || request.headers.host !== undefined) return false
  const { headers, body } = closingError(BAD_REQUEST, { bodyValidationError: 'headers must have a Host header in HTTP/1.1' })
  response.writeHead(400, headers).end(body)
  return true
}
