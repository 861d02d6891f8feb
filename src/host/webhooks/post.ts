import { createHmac } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { checkedAddress, type Resolver } from './address-guard.js'

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`: what a receiver checks. */
export function signature (secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

/** One delivery as it is sent. */
export interface Signed {
  readonly id: string
  readonly event: string
  readonly url: string
  readonly secret: string
  readonly body: string
}

/** What one try came to: a status code, or none (refused, unreachable, too slow). */
export interface Outcome {
  readonly status: number | null
  readonly error?: string
}

export interface PostOptions {
  readonly agents: { readonly http: http.Agent, readonly https: https.Agent }
  readonly resolve: Resolver
  readonly allowPrivate: boolean
  readonly now: () => number
  /** Aborted when the try has taken too long (or the host stops): its reason says which. */
  readonly signal: AbortSignal
}

const MAX_ANSWER_BYTES = 64 * 1024

const reason = (signal: AbortSignal): string => (signal.reason as Error | undefined)?.message ?? 'aborted'

/**
 * Rejects when `signal` aborts: a name that never resolves is bounded like a receiver
 * that never answers.
 */
async function untilAborted<T> (work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw new Error(reason(signal))
  let stop: () => void = () => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    stop = () => { reject(new Error(reason(signal))) }
    signal.addEventListener('abort', stop, { once: true })
  })
  try {
    return await Promise.race([work, aborted])
  } finally {
    signal.removeEventListener('abort', stop)
  }
}

/**
 * One try: POSTs the signed delivery to the address checked now. All of it — resolving
 * the name, connecting, the status line, the headers and the body of the answer — ends
 * when `signal` aborts, so a receiver that accepts and then answers a byte at a time is
 * cut off like one that never answers.
 */
export async function post (delivery: Signed, options: PostOptions): Promise<Outcome> {
  const { signal } = options
  let url: URL
  try {
    url = new URL(delivery.url)
  } catch {
    return { status: null, error: 'not a URL' }
  }
  let address
  try {
    address = await untilAborted(checkedAddress(url.hostname, options.resolve, options.allowPrivate), signal)
  } catch (error) {
    return { status: null, error: (error as Error).message }
  }
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all === true) (callback as (error: null, addresses: Array<{ address: string, family: number }>) => void)(null, [address])
    else callback(null, address.address, address.family)
  }
  const secure = url.protocol === 'https:'
  return new Promise<Outcome>(resolve => {
    let settled = false
    const done = (outcome: Outcome): void => {
      if (settled) return
      settled = true
      resolve(outcome)
    }
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? options.agents.https : options.agents.http,
      lookup: pinned,
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(delivery.body),
        'user-agent': 'Shoutbox-Webhooks/1',
        'shoutbox-event': delivery.event,
        'shoutbox-delivery': delivery.id,
        'shoutbox-signature': signature(delivery.secret, delivery.body, Math.floor(options.now() / 1000))
      }
    })
    request.on('response', response => {
      // Read (and drop) a bounded answer, so the connection can be used again.
      let bytes = 0
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes > MAX_ANSWER_BYTES) response.destroy()
      })
      const answered = (): void => { done({ status: response.statusCode ?? null }) }
      response.on('end', answered)
      response.on('error', answered)
      response.on('close', answered)
    })
    request.on('error', error => { done({ status: null, error: signal.aborted ? reason(signal) : error.message }) })
    request.end(delivery.body)
  })
}
