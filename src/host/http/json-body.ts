import { isUtf8 } from 'node:buffer'
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { BadRequest } from '../../sdk/index.js'

const bad = (what: string): BadRequest => new BadRequest({ bodyValidationError: what })

/**
 * The only body format: JSON, as UTF-8. Each way a body can be wrong gets its own
 * sentence; a `__proto__` or `constructor.prototype` key is refused (prototype poisoning).
 * Every other content type is refused by Fastify (415, answered as 400 BAD_REQUEST).
 */
export function installJsonBodyParser (app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    if (body.length === 0) return done(bad('body must be a JSON object, but the request has no body'), undefined)
    if (!isUtf8(body)) return done(bad('body is not valid UTF-8'), undefined)
    const text = body.toString('utf8')
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return done(bad('body is not valid JSON'), undefined)
    }
    try {
      if (typeof parsed === 'object' && parsed !== null) secureJson.scan(parsed, { protoAction: 'error', constructorAction: 'error' })
    } catch {
      return done(bad('body must not contain a "__proto__" or "constructor" key'), undefined)
    }
    done(null, parsed)
  })
}
