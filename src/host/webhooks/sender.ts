import http from 'node:http'
import https from 'node:https'
import type { FastifyBaseLogger } from 'fastify'
import type { Database, Transaction } from '../../sdk/index.js'
import { WEBHOOKS_TABLE, WEBHOOK_DELIVERIES_TABLE } from '../database/tables.js'
import type { Cluster } from '../services/cluster.js'
import { systemResolver, type Resolver } from './address-guard.js'
import { deliveryBody } from './formats.js'
import { WEBHOOKS_CHANGED, type WebhookFormat } from './outbox.js'
import { OutcomeWriter } from './outcomes.js'
import { post, type Outcome } from './post.js'

export { signature } from './post.js'

export interface SenderOptions {
  /** `WEBHOOKS_ALLOW_PRIVATE=1`: loopback and private addresses may be sent to (tests, local receivers). */
  readonly allowPrivate: boolean
  /** A try that has not ended in this long (name resolved, answer read) has failed. */
  readonly timeoutMs?: number
  /** How often a process looks for due deliveries while any hook is active. */
  readonly pollMs?: number
  /** Tries a process has in flight at most, all hooks together. */
  readonly concurrency?: number
  /** Tries a process has in flight at most for one hook (one while the hook's last try had no answer). */
  readonly perHook?: number
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

interface Claimed {
  id: string
  hook_id: number
  event: string
  data: unknown
  created_at: number | string
  attempts: number
  url: string
  secret: string
  format: WebhookFormat
}

/** How long a delivery done with (delivered or failed) stays in the panel's log. */
const KEEP_DONE_MS = 30 * 24 * 60 * 60_000
/** How often a process prunes the deliveries done with. */
const PRUNE_EVERY_MS = 60 * 60_000
/**
 * Tries that end within this long of each other free their places for one claim, not one
 * each: a busy hook's deliveries then cost a claim a batch, not a claim a delivery.
 */
const GATHER_MS = 10
/** The outcome of a delivery its hook's format has nothing to send for: done, with no answer to record. */
const NOTHING_TO_SEND = -1
/** The reason a try is abandoned when the host stops: its claim is let go, not counted as failed. */
const STOPPING = new Error('the host is stopping')

/**
 * Sends the outbox's due deliveries, each on its own: a try that ends frees its place at
 * once, and the next due delivery takes it, whatever the other tries are doing. Each
 * hook is a lane of a few tries in flight (see `claim`; one while its last try had no
 * answer), so a receiver that never answers holds its own lane, not the deliveries of
 * the others.
 *
 * Every process runs one. A delivery is claimed — its `locked_until` set, in one
 * statement over rows taken `FOR UPDATE SKIP LOCKED` — by one process at a time, and a
 * claim outlives the longest try, so a process killed mid-send leaves its claims to run
 * out and be taken by another. A 2xx within the timeout marks the delivery delivered and
 * it is never sent again; anything else is tried again after `retryDelayMs`, up to
 * `maxAttempts` tries, then marked failed.
 *
 * It looks for work only while some hook is active (known from `webhooks-changed`
 * notices, and checked again every half minute), so a board without hooks pays nothing.
 */
export class WebhookSender {
  private readonly timeoutMs: number
  private readonly pollMs: number
  private readonly concurrency: number
  private readonly perHook: number
  private readonly maxAttempts: number
  private readonly delay: (attempt: number) => number
  private readonly resolve: Resolver
  private readonly now: () => number
  /**
   * No cap of sockets per origin: the lanes bound the tries in flight, and a cap would let
   * a hook that never answers hold the sockets of another hook at the same host and port.
   */
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }
  private timer: NodeJS.Timeout | undefined
  /** The claim under way; one at a time, and one more asked for while it runs. */
  private claiming: Promise<void> | undefined
  private claimAgain = false
  /** Set while the places freed by tries that ended are gathered for one claim. */
  private gathering: NodeJS.Timeout | undefined
  private stopped = true
  private anyActive = false
  private checkedActiveAt = 0
  private lastPruneAt = 0
  /** The tries in flight, each ended by aborting its controller. */
  private readonly tries = new Map<AbortController, Promise<void>>()
  /** Hook id → tries in flight here. */
  private readonly busy = new Map<number, number>()
  /** Hooks whose last try here had no answer: one try at a time until one answers. */
  private readonly slow = new Set<number>()
  private readonly outcomes: OutcomeWriter

  constructor (private readonly db: Database, private readonly cluster: Cluster, private readonly log: FastifyBaseLogger, private readonly options: SenderOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.pollMs = options.pollMs ?? 250
    this.concurrency = options.concurrency ?? 128
    this.perHook = options.perHook ?? 64
    this.maxAttempts = options.maxAttempts ?? 10
    this.delay = options.retryDelayMs ?? retryDelayMs
    this.resolve = options.resolve ?? systemResolver
    this.now = options.now ?? Date.now
    this.outcomes = new OutcomeWriter(db)
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
    this.kick()
  }

  /** Looks for due deliveries now (after a ping or a redeliver committed), not at the next poll. */
  kick (): void {
    if (this.stopped) return
    if (this.claiming !== undefined) {
      this.claimAgain = true
      return
    }
    clearTimeout(this.timer)
    this.claiming = this.fill()
      .catch(error => { this.log.error({ err: error }, 'webhook deliveries: a claim failed') })
      .then(() => {
        this.claiming = undefined
        if (this.stopped) return
        if (this.claimAgain) {
          this.claimAgain = false
          this.kick()
        } else {
          this.timer = setTimeout(() => { this.kick() }, this.pollMs)
          this.timer.unref()
        }
      })
  }

  /** A place was freed: a claim soon, for it and the others freed meanwhile. */
  private gather (): void {
    if (this.stopped || this.gathering !== undefined) return
    this.gathering = setTimeout(() => {
      this.gathering = undefined
      this.kick()
    }, GATHER_MS)
  }

  /** Stops looking; tries in flight are abandoned and their claims let go, for a process still running to take at once. */
  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    clearTimeout(this.gathering)
    await this.claiming
    for (const controller of this.tries.keys()) controller.abort(STOPPING)
    await Promise.all(this.tries.values())
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  /** Claims as many due deliveries as there are free places, and starts each one's try. */
  private async fill (): Promise<void> {
    await this.pruneIfDue()
    if (!await this.hooksActive()) return
    const free = this.concurrency - this.tries.size
    if (free <= 0) return
    for (const delivery of await this.claim(free)) this.begin(delivery)
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

  /**
   * Up to `free` due deliveries, each hook's oldest first and no more than its lane has
   * room for. A lane is `perHook` wide, or the hook's even share of `concurrency` when
   * there are more active hooks than that fills (one at least), or one while the hook is
   * slow; so hooks that never answer can hold only their own shares, and a share is left
   * for each other hook. The hooks with the fewest tries in flight are served first, so
   * places go round the hooks rather than to the one with the most waiting.
   */
  private async claim (free: number): Promise<Claimed[]> {
    const now = this.now()
    const result = await this.db.raw<{ rows: Claimed[] }>(`
      update ${WEBHOOK_DELIVERIES_TABLE} d set locked_until = :lease, attempts = d.attempts + 1
      from (
        select lane.id from (
          select due.id, due.next_attempt_at, due.created_at, hooks.busy, hooks.lanes,
                 row_number() over (partition by hooks.id order by due.next_attempt_at, due.created_at) as place
          from (
            select h.id, coalesce((:busy::jsonb ->> h.id::text)::int, 0) as busy,
                   case when :slow::jsonb @> to_jsonb(h.id) then 1 else greatest(1, least(:perHook, :concurrency / count(*) over ())) end as lanes
            from ${WEBHOOKS_TABLE} h where h.active
          ) hooks
          cross join lateral (
            select w.id, w.next_attempt_at, w.created_at from ${WEBHOOK_DELIVERIES_TABLE} w
            where w.hook_id = hooks.id and w.status = 'pending' and w.next_attempt_at <= :now and (w.locked_until is null or w.locked_until <= :now)
            order by w.next_attempt_at, w.created_at limit hooks.lanes - hooks.busy for update of w skip locked
          ) due
          where hooks.busy < hooks.lanes
        ) lane
        order by lane.busy + lane.place, lane.next_attempt_at, lane.created_at limit :free
      ) claimed,
      ${WEBHOOKS_TABLE} h
      where d.id = claimed.id and h.id = d.hook_id
      returning d.id, d.hook_id, d.event, d.data, d.created_at, d.attempts, h.url, h.secret, h.format`, {
      now,
      lease: now + this.timeoutMs + 20_000,
      free,
      perHook: this.perHook,
      concurrency: this.concurrency,
      busy: JSON.stringify(Object.fromEntries(this.busy)),
      slow: JSON.stringify([...this.slow])
    })
    return result.rows
  }

  /** Starts one delivery's try; when it ends, its outcome is written and its place goes to the next. */
  private begin (delivery: Claimed): void {
    const hook = delivery.hook_id
    this.busy.set(hook, (this.busy.get(hook) ?? 0) + 1)
    const controller = new AbortController()
    const timer = setTimeout(() => { controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)) }, this.timeoutMs)
    const body = deliveryBody(delivery.format, { id: delivery.id, event: delivery.event, createdAt: Number(delivery.created_at), data: delivery.data })
    // Nothing to say in the hook's format (a chat channel and a shout deleted meanwhile): done, with no request.
    const tried = (body === null
      ? Promise.resolve<Outcome>({ status: NOTHING_TO_SEND })
      : post({ id: delivery.id, event: delivery.event, url: delivery.url, secret: delivery.secret, body }, {
        agents: this.agents, resolve: this.resolve, allowPrivate: this.options.allowPrivate, now: this.now, signal: controller.signal
      }))
      .then(async outcome => {
        clearTimeout(timer)
        if (outcome.status === null && controller.signal.reason === STOPPING) await this.release(delivery)
        else await this.record(delivery, outcome)
      })
      .catch(error => { this.log.error({ err: error, delivery: delivery.id }, 'webhook deliveries: a try could not be written') })
      .then(() => {
        this.tries.delete(controller)
        const left = (this.busy.get(hook) ?? 1) - 1
        if (left === 0) this.busy.delete(hook)
        else this.busy.set(hook, left)
        this.gather()
      })
    this.tries.set(controller, tried)
  }

  /** What the try came to, written only while the claim is still this try's (with others that ended meanwhile). */
  private async record (delivery: Claimed, outcome: Outcome): Promise<void> {
    if (outcome.status === NOTHING_TO_SEND) {
      await this.outcomes.write({ id: delivery.id, attempts: delivery.attempts, status: 'delivered', responseCode: null, nextAttemptAt: null })
      return
    }
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
    const failed = !delivered && delivery.attempts >= this.maxAttempts
    if (outcome.status === null) this.slow.add(delivery.hook_id)
    else this.slow.delete(delivery.hook_id)
    if (!delivered) this.log.info({ delivery: delivery.id, event: delivery.event, attempt: delivery.attempts, status: outcome.status, reason: outcome.error }, 'webhook delivery not accepted')
    await this.outcomes.write({
      id: delivery.id,
      attempts: delivery.attempts,
      status: delivered ? 'delivered' : failed ? 'failed' : 'pending',
      responseCode: outcome.status,
      nextAttemptAt: delivered || failed ? null : this.now() + this.delay(delivery.attempts)
    })
  }

  /** A try abandoned as the host stops: its claim let go, due at once for another process (it may have arrived: receivers de-duplicate by id). */
  private async release (delivery: Claimed): Promise<void> {
    await this.db(WEBHOOK_DELIVERIES_TABLE)
      .where({ id: delivery.id, attempts: delivery.attempts, status: 'pending' })
      .update({ locked_until: null })
  }
}
