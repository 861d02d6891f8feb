import { isUtf8 } from 'node:buffer'
import { errorCodes, type FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { BadRequest, UNSTORABLE_TEXT, isStorableText } from '../../sdk/index.js'

const bad = (what: string): BadRequest => new BadRequest({ bodyValidationError: what })

/** The `charset` parameter of a Content-Type (quoted or not). */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i

/**
 * Where in `value` a string (or a key) holds text PostgreSQL cannot store, as validation
 * names a place (`body/email`); undefined when there is none. A loop, not recursion: a
 * body may be nested 20,000 deep.
 */
function unstorableAt (value: unknown, at: string): string | undefined {
  const pending: Array<[unknown, string]> = [[value, at]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [inner, where] = next
    if (typeof inner === 'string' && !isStorableText(inner)) return where
    if (typeof inner !== 'object' || inner === null) continue
    for (const [key, item] of Object.entries(inner)) {
      if (!isStorableText(key)) return where
      pending.push([item, `${where}/${key}`])
    }
  }
  return undefined
}

/**
 * The only body format: JSON, as UTF-8 (a body declared in another charset is refused, not
 * misread). Each way a body can be wrong gets its own
 * sentence; a `__proto__` or `constructor.prototype` key is refused (prototype poisoning),
 * and so is a U+0000 or an unpaired surrogate anywhere in it (valid JSON escapes, which no
 * field of any endpoint may hold: PostgreSQL cannot store them, and without this each
 * endpoint would have to remember, or fail with 500 in the database).
 * Every other content type is refused by Fastify (415, answered as 400 BAD_REQUEST).
 */
export function installJsonBodyParser (app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]
    if (charset !== undefined && !/^(utf-?8|us-ascii)$/i.test(charset)) return done(bad(`body must be sent as UTF-8, not ${charset.slice(0, 40)}`), undefined)
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
    const unstorable = unstorableAt(parsed, 'body')
    if (unstorable !== undefined) return done(bad(`${unstorable} ${UNSTORABLE_TEXT}`), undefined)
    done(null, parsed)
  })
  // RFC 8058: a mail client unsubscribes with one POST of the form `List-Unsubscribe=One-Click`.
  // That one path takes a form (and reads nothing from it: the link's query says who); any other answers as before.
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'buffer', bodyLimit: 4096 }, (request, _body, done) => {
    if (request.url.split('?')[0] !== ONE_CLICK_UNSUBSCRIBE_PATH) return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type'] ?? ''), undefined)
    done(null, {})
  })
}

/** The one path that takes a form: the one-click unsubscribe of a mention mail. */
export const ONE_CLICK_UNSUBSCRIBE_PATH = '/api/mail/unsubscribe'
