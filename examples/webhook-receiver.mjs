/**
 * A Shoutbox webhook receiver: plain Node, no dependencies.
 *
 * Shoutbox sends each delivery as `POST <your url>` with a JSON body
 * `{id, event, createdAt, data}` and three headers:
 *
 *   Shoutbox-Event: shout.created
 *   Shoutbox-Delivery: <the delivery id, the same as the body's id>
 *   Shoutbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>
 *
 * This receiver checks the signature and the timestamp, ignores a delivery it has seen
 * already (Shoutbox retries until it gets a 2xx, so the same delivery can come twice),
 * and hands each new one to `onEvent`.
 *
 * As a script:  WEBHOOK_SECRET=whsec... PORT=8787 node examples/webhook-receiver.mjs
 * As a module:  import { createReceiver } from './webhook-receiver.mjs'
 */
import { Buffer } from 'node:buffer'
import crypto from 'node:crypto'
import http from 'node:http'
import process from 'node:process'
import { pathToFileURL } from 'node:url'

/** The largest body accepted: 1 MiB. Shoutbox's deliveries are far smaller. */
const MAX_BODY_BYTES = 1024 * 1024
/** How many delivery ids are remembered to spot a repeated delivery. */
const REMEMBERED_IDS = 10_000

/**
 * Makes the receiver: a `node:http` Server that is not listening yet (call `.listen()`).
 *
 * @param {object} options
 * @param {string} options.secret the webhook's signing secret, shown once when it was created
 * @param {number} [options.toleranceSeconds] how far the signed time may be from now (default 300: 5 minutes)
 * @param {() => number} [options.now] the current time in milliseconds (tests pass their own)
 * @param {(delivery: {id: string, event: string, createdAt: string, data: unknown}) => void | Promise<void>} options.onEvent
 *   called once for each new delivery
 * @returns {http.Server}
 */
export function createReceiver ({ secret, toleranceSeconds = 300, now = () => Date.now(), onEvent }) {
  if (typeof secret !== 'string' || secret === '') throw new Error('createReceiver needs the webhook secret')
  const seen = new RecentIds(REMEMBERED_IDS)

  return http.createServer((request, response) => {
    // Step 1: a delivery is always a POST.
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST')
      return answer(response, 405, { error: 'method not allowed' })
    }

    // Step 2: read the raw body. The signature covers the exact bytes sent, so the body
    // must be checked before it is parsed (parsing and re-serialising could change it).
    readBody(request, MAX_BODY_BYTES).then(body => {
      if (body === null) {
        response.setHeader('connection', 'close')
        return answer(response, 413, { error: 'body too large' })
      }

      // Step 3: check the headers are there, and read the signature header:
      // `t=<seconds>,v1=<hex>[,v1=<hex>...]`.
      if (!request.headers['shoutbox-event'] || !request.headers['shoutbox-delivery']) {
        return answer(response, 400, { error: 'missing Shoutbox-Event or Shoutbox-Delivery' })
      }
      const signature = parseSignature(request.headers['shoutbox-signature'])
      if (signature === null) return answer(response, 400, { error: 'missing or malformed Shoutbox-Signature' })

      // Step 4: refuse a delivery signed too long ago (or in the future): an old,
      // captured delivery cannot be replayed later.
      const age = Math.abs(now() / 1000 - signature.timestamp)
      if (age > toleranceSeconds) return answer(response, 401, { error: 'timestamp outside the tolerance' })

      // Step 5: compute the signature ourselves and compare it with each v1 sent
      // (there can be several while a secret is being rotated).
      const expected = crypto.createHmac('sha256', secret)
        .update(`${signature.timestamp}.`)
        .update(body)
        .digest()
      const matches = signature.v1.some(hex => safeEqual(expected, Buffer.from(hex, 'hex')))
      if (!matches) return answer(response, 401, { error: 'signature does not match' })

      // Step 6: the body is genuine; now parse it.
      let delivery
      try {
        delivery = JSON.parse(body.toString('utf8'))
      } catch {
        return answer(response, 400, { error: 'body is not JSON' })
      }
      if (delivery === null || typeof delivery !== 'object' || typeof delivery.id !== 'string' || typeof delivery.event !== 'string') {
        return answer(response, 400, { error: 'body is not a delivery' })
      }

      // Step 7: answer 200 at once (Shoutbox waits at most 10 s), also for a delivery
      // seen before, so that Shoutbox stops sending it. Only a new one reaches onEvent.
      answer(response, 200, { ok: true })
      if (seen.add(delivery.id)) {
        // Handle the event after answering; an error in it must not crash the receiver.
        Promise.resolve()
          .then(() => onEvent(delivery))
          .catch(error => console.error(`onEvent failed for delivery ${delivery.id}:`, error))
      }
    }, () => {
      // The connection broke while the body was arriving: nothing to answer.
      response.destroy()
    })
  })
}

/**
 * Parses `t=1700000000,v1=abc...,v1=def...` into `{timestamp, v1: [...]}`, or null when
 * the header is missing, has no whole-number `t`, or no hex `v1`.
 *
 * @param {string | string[] | undefined} header
 * @returns {{timestamp: number, v1: string[]} | null}
 */
export function parseSignature (header) {
  if (typeof header !== 'string') return null
  let timestamp = null
  const v1 = []
  for (const part of header.split(',')) {
    const equals = part.indexOf('=')
    if (equals === -1) continue
    const key = part.slice(0, equals).trim()
    const value = part.slice(equals + 1).trim()
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return null
      timestamp = Number(value)
    } else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      v1.push(value)
    }
  }
  if (timestamp === null || v1.length === 0) return null
  return { timestamp, v1 }
}

/** Compares two buffers in constant time; buffers of different lengths never match. */
function safeEqual (a, b) {
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

/**
 * Reads the whole request body as a Buffer, or resolves null as soon as it grows past
 * `limit` bytes (the rest is not kept).
 */
function readBody (request, limit) {
  return new Promise((resolve, reject) => {
    const chunks = []
    let size = 0
    request.on('data', chunk => {
      size += chunk.length
      if (size > limit) {
        request.removeAllListeners('data')
        request.resume()
        return resolve(null)
      }
      chunks.push(chunk)
    })
    request.on('end', () => resolve(Buffer.concat(chunks)))
    request.on('error', reject)
  })
}

/** Sends a small JSON answer. */
function answer (response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/** Remembers the last `limit` ids; `add` says whether the id is new. */
class RecentIds {
  constructor (limit) {
    this.limit = limit
    // A Set keeps insertion order, so its first entry is the oldest.
    this.ids = new Set()
  }

  add (id) {
    if (this.ids.has(id)) return false
    this.ids.add(id)
    if (this.ids.size > this.limit) this.ids.delete(this.ids.values().next().value)
    return true
  }
}

// Run as a script: listen on 127.0.0.1 and print one line per new event.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.WEBHOOK_SECRET
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the webhook\'s signing secret.')
    process.exit(1)
  }
  const port = Number(process.env.PORT ?? 8787)
  const server = createReceiver({
    secret,
    onEvent: delivery => console.log(`${delivery.event} ${delivery.id} ${JSON.stringify(delivery.data)}`)
  })
  server.listen(port, '127.0.0.1', () => {
    console.error(`Listening for Shoutbox webhooks on http://127.0.0.1:${port}/`)
  })
}
