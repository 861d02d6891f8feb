import { createHmac } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import type { Database, Transaction } from '../../sdk/index.js'
import { WEBHOOKS_TABLE, WEBHOOK_DELIVERIES_TABLE } from '../database/tables.js'
import type { Cluster } from '../services/cluster.js'
import { checkedAddress, systemResolver, type Resolver } from './address-guard.js'
import { WEBHOOKS_CHANGED } from './outbox.js'

export interface SenderOptions {
  /** `WEBHOOKS_ALLOW_PRIVATE=1`: loopback and private addresses may be sent to (tests, local receivers). */
  readonly allowPrivate: boolean
  /** A receiver that has not answered 2xx in this long has failed this try. */
  readonly timeoutMs?: number
  /** How often a process looks for due deliveries while any hook is active. */
  readonly pollMs?: number
  /** Deliveries a process claims at once. */
  readonly batch?: number
  /** The wait after the failed try number `attempt` (1 for the first). */
  readonly retryDelayMs?: (attempt: number) => number
  readonly maxAttempts?: number
  readonly resolve?: Resolver
  readonly now?: () => number
}

/** About a minute, then three times longer each try, up to a day: ten tries span about three days. */
export function retryDelayMs (attempt: number): number {
  const base = Math.min(60_000 * 3 ** (attempt - 1), 24 * 60 * 60_000)
  return Math.round(base * (0.9 + Math.random() * 0.2))
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`: what a receiver checks. */
export function signature (secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

interface Claimed {
  id: string
  event: string
  data: unknown
  created_at: number | string
  attempts: number
  url: string
  secret: string
}

/** What one try came to: a status code, or none (refused, unreachable, too slow). */
interface Outcome {
  readonly status: number | null
  readonly error?: string
}

const MAX_ANSWER_BYTES = 64 * 1024
/** How long a delivery done with (delivered or failed) stays in the panel's log. */
const KEEP_DONE_MS = 30 * 24 * 60 * 60_000
/** How often a process prunes the deliveries done with. */
const PRUNE_EVERY_MS = 60 * 60_000

/**
 * Sends the outbox's due deliveries. Every process runs one; a delivery is claimed — its
 * `locked_until` set, in one statement over rows taken `FOR UPDATE SKIP LOCKED` — by one
 * process at a time, and a claim outlives the longest try, so a process killed mid-send
 * leaves its claims to run out and be taken by another. A 2xx within the timeout marks
 * the delivery delivered and it is never sent again; anything else is tried again after
 * `retryDelayMs`, up to `maxAttempts` tries, then marked failed.
 *
 * It looks for work only while some hook is active (known from `webhooks-changed`
 * notices, and checked again every half minute), so a board without hooks pays nothing.
 */
export class WebhookSender {
  private readonly timeoutMs: number
  private readonly pollMs: number
  private readonly batch: number
  private readonly maxAttempts: number
  private readonly delay: (attempt: number) => number
  private readonly resolve: Resolver
  private readonly now: () => number
  private readonly agents = { http: new http.Agent({ keepAlive: true, maxSockets: 32 }), https: new https.Agent({ keepAlive: true, maxSockets: 32 }) }
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = true
  private anyActive = false
  private checkedActiveAt = 0
  private lastPruneAt = 0
  private readonly inFlight = new Set<http.ClientRequest>()

  constructor (private readonly db: Database, private readonly cluster: Cluster, private readonly log: FastifyBaseLogger, private readonly options: SenderOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.pollMs = options.pollMs ?? 250
    this.batch = options.batch ?? 100
    this.maxAttempts = options.maxAttempts ?? 10
    this.delay = options.retryDelayMs ?? retryDelayMs
    this.resolve = options.resolve ?? systemResolver
    this.now = options.now ?? Date.now
    cluster.subscribe(WEBHOOKS_CHANGED, () => {
      this.checkedActiveAt = 0
      this.kick()
    })
  }

  /** Hooks were added, changed or removed (inside `trx`): on commit, every process's sender looks again whether any is active. */
  async hooksChanged (trx: Transaction): Promise<void> {
    await this.cluster.notify(WEBHOOKS_CHANGED, '', trx)
  }

  start (): void {
    this.stopped = false
    this.schedule(0)
  }

  /** Looks for due deliveries now (after a ping or a redeliver committed), not at the next poll. */
  kick (): void {
    if (this.stopped || this.running !== undefined) return
    this.schedule(0)
  }

  /** Stops looking; tries in flight are abandoned, and their claims run out for another process to take. */
  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    for (const request of this.inFlight) request.destroy(new Error('the host is stopping'))
    await this.running
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  private schedule (ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.running = this.round().catch(error => this.log.error({ err: error }, 'webhook deliveries: a round failed'))
        .then(claimedFull => {
          this.running = undefined
          if (!this.stopped) this.schedule(claimedFull === true ? 0 : this.pollMs)
        })
    }, ms)
    this.timer.unref()
  }

  /** One round: claims what is due and sends it all; true when it claimed a full batch (more may be waiting). */
  private async round (): Promise<boolean> {
    await this.pruneIfDue()
    if (!await this.hooksActive()) return false
    const claimed = await this.claim()
    await Promise.all(claimed.map(async delivery => this.record(delivery, await this.send(delivery))))
    return claimed.length === this.batch
  }

  /** At most once an hour: deletes the deliveries delivered or failed over 30 days ago. */
  private async pruneIfDue (): Promise<void> {
    const now = this.now()
    if (now - this.lastPruneAt < PRUNE_EVERY_MS) return
    this.lastPruneAt = now
    await this.db(WEBHOOK_DELIVERIES_TABLE).whereNot('status', 'pending').where('created_at', '<', now - KEEP_DONE_MS).delete()
  }

  private async hooksActive (): Promise<boolean> {
    const now = this.now()
    if (now - this.checkedActiveAt >= 30_000) {
      this.checkedActiveAt = now
      this.anyActive = await this.db(WEBHOOKS_TABLE).where({ active: true }).first('id') !== undefined
    }
    return this.anyActive
  }

  private async claim (): Promise<Claimed[]> {
    const now = this.now()
    const result = await this.db.raw<{ rows: Claimed[] }>(`
      update ${WEBHOOK_DELIVERIES_TABLE} d set locked_until = :lease, attempts = d.attempts + 1
      from (select w.id from ${WEBHOOK_DELIVERIES_TABLE} w join ${WEBHOOKS_TABLE} h on h.id = w.hook_id
            where w.status = 'pending' and w.next_attempt_at <= :now and (w.locked_until is null or w.locked_until <= :now) and h.active
            order by w.next_attempt_at, w.created_at limit :batch for update of w skip locked) due,
           ${WEBHOOKS_TABLE} h
      where d.id = due.id and h.id = d.hook_id
      returning d.id, d.event, d.data, d.created_at, d.attempts, h.url, h.secret`,
    { now, lease: now + this.timeoutMs + 20_000, batch: this.batch })
    return result.rows
  }

  /** One try: POSTs the signed delivery, to the address checked now. */
  private async send (delivery: Claimed): Promise<Outcome> {
    const body = JSON.stringify({ id: delivery.id, event: delivery.event, createdAt: Number(delivery.created_at), data: delivery.data })
    let url: URL
    try {
      url = new URL(delivery.url)
    } catch {
      return { status: null, error: 'not a URL' }
    }
    let address
    try {
      address = await checkedAddress(url.hostname, this.resolve, this.options.allowPrivate)
    } catch (error) {
      return { status: null, error: (error as Error).message }
    }
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all === true) (callback as (error: null, addresses: Array<{ address: string, family: number }>) => void)(null, [address])
      else callback(null, address.address, address.family)
    }
    const secure = url.protocol === 'https:'
    return new Promise<Outcome>(resolve => {
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        lookup: pinned,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Shoutbox-Webhooks/1',
          'shoutbox-event': delivery.event,
          'shoutbox-delivery': delivery.id,
          'shoutbox-signature': signature(delivery.secret, body, Math.floor(this.now() / 1000))
        }
      })
      this.inFlight.add(request)
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs)
      const done = (outcome: Outcome): void => {
        clearTimeout(timer)
        this.inFlight.delete(request)
        resolve(outcome)
      }
      request.on('response', response => {
        // Read (and drop) a bounded answer, so the connection can be used again.
        let bytes = 0
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length
          if (bytes > MAX_ANSWER_BYTES) response.destroy()
        })
        response.on('end', () => done({ status: response.statusCode ?? null }))
        response.on('error', () => done({ status: response.statusCode ?? null }))
        response.on('close', () => done({ status: response.statusCode ?? null }))
      })
      request.on('error', error => done({ status: null, error: error.message }))
      request.end(body)
    })
  }

  /** What the try came to, written only while the claim is still this try's. */
  private async record (delivery: Claimed, outcome: Outcome): Promise<void> {
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
    const failed = !delivered && delivery.attempts >= this.maxAttempts
    if (!delivered) this.log.info({ delivery: delivery.id, event: delivery.event, attempt: delivery.attempts, status: outcome.status, reason: outcome.error }, 'webhook delivery not accepted')
    await this.db(WEBHOOK_DELIVERIES_TABLE)
      .where({ id: delivery.id, attempts: delivery.attempts, status: 'pending' })
      .update({
        status: delivered ? 'delivered' : failed ? 'failed' : 'pending',
        response_code: outcome.status,
        locked_until: null,
        ...(delivered || failed ? {} : { next_attempt_at: this.now() + this.delay(delivery.attempts) })
      })
  }
}
