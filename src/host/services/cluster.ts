import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import pg from 'pg'
import type { OpenDatabase } from '../database/connect.js'
import type { SqlPart, Transaction } from '../../sdk/index.js'

type Handler = (payload: string) => void

/** The value of a JSON text, or undefined when it is not JSON: the one parse of what the cluster carries. */
function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isMessage = (value: unknown): value is Message => typeof value === 'object' && value !== null &&
  typeof (value as Message).origin === 'string' && typeof (value as Message).topic === 'string' && typeof (value as Message).payload === 'string'

interface Message {
  readonly origin: string
  readonly topic: string
  readonly payload: string
}

/**
 * Change notices between the host processes that share one PostgreSQL, over
 * LISTEN/NOTIFY. A notice sent inside a transaction is delivered by PostgreSQL only when
 * it commits. This process hears its own notices at once, without the round trip.
 * The embedded database belongs to one process, so there it is purely local.
 */
export class Cluster {
  private readonly origin = randomUUID()
  /**
   * How this process's own notices begin on the wire (`notify` writes `origin` first).
   * PostgreSQL sends them back to this process's link too; they are skipped unread.
   */
  private readonly ownPrefix = `{"origin":${JSON.stringify(this.origin)},`
  private readonly channel: string
  private readonly handlers = new Map<string, Set<Handler>>()
  private readonly resyncHandlers = new Set<() => void>()
  private client: pg.Client | undefined
  private linked: boolean
  private stopped = false
  private retryDelay = 100
  private retryTimer: NodeJS.Timeout | undefined

  constructor (private readonly database: OpenDatabase, private readonly log: FastifyBaseLogger) {
    this.channel = `shoutbox_${database.schema}`
    this.linked = database.kind === 'embedded'
  }

  /** True while every notice from other processes reaches us; caches must not be trusted otherwise. */
  get isLinked (): boolean {
    return this.linked
  }

  async start (): Promise<void> {
    if (this.database.kind === 'postgres') await this.connect()
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.retryTimer)
    const client = this.client
    this.client = undefined
    this.linked = false
    await client?.end().catch(() => {})
  }

  subscribe (topic: string, handler: Handler): void {
    const set = this.handlers.get(topic) ?? new Set()
    set.add(handler)
    this.handlers.set(topic, set)
  }

  /**
   * Subscribes to a topic whose messages are JSON (sent with `notifyJson`): each is parsed
   * and checked by `accepts` before `handler` hears it; one that is not what the topic
   * carries (from a newer or older process) is dropped, and logged.
   */
  subscribeJson<T> (topic: string, accepts: (value: unknown) => value is T, handler: (value: T) => void): void {
    this.subscribe(topic, payload => {
      const value = parseJson(payload)
      if (accepts(value)) handler(value)
      else this.log.warn({ topic }, 'dropped a cluster message that is not what its topic carries')
    })
  }

  /** Sends `value`, as JSON, to every process's `subscribeJson` handlers of `topic` (with `trx`: once it commits). */
  async notifyJson (topic: string, value: unknown, trx?: Transaction): Promise<void> {
    await this.notify(topic, JSON.stringify(value), trx)
  }

  onResync (handler: () => void): void {
    this.resyncHandlers.add(handler)
  }

  async notify (topic: string, payload: string, trx?: Transaction): Promise<void> {
    if (this.database.kind === 'postgres') {
      const message: Message = { origin: this.origin, topic, payload }
      await (trx ?? this.database.knex).raw('select pg_notify(?, ?)', [this.channel, JSON.stringify(message)])
    }
    if (trx === undefined) this.deliver(topic, payload)
    else trx.executionPromise.then(() => this.deliver(topic, payload), () => {})
  }

  /**
   * The SQL expression that sends the text `payload` (an expression of the caller's
   * statement) on `topic` when that statement's transaction commits: for a change
   * announced by the very statement that makes it, in one round trip. The envelope is
   * written as `notify` writes it, so this process knows its own notice on the wire. On
   * the embedded database it sends nothing (there is nobody else to tell).
   *
   * Once the statement has committed, hand the text it sent to `delivered`: this process
   * hears its own notices from there.
   */
  notifying (topic: string, payload: SqlPart): SqlPart {
    const knex = this.database.knex
    if (this.database.kind !== 'postgres') return knex.raw('null')
    return knex.raw(`pg_notify(?, ? || to_json(?::text)::text || ',"payload":' || to_json((?)::text)::text || '}')`,
      [this.channel, this.ownPrefix + '"topic":', topic, payload])
  }

  /** Delivers to this process a notice a committed statement sent with `notifying`. */
  delivered (topic: string, payload: string): void {
    this.deliver(topic, payload)
  }

  private deliver (topic: string, payload: string): void {
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        handler(payload)
      } catch (error) {
        this.log.error({ err: error, topic }, 'cluster notice handler failed')
      }
    }
  }

  private resync (): void {
    for (const handler of this.resyncHandlers) {
      try {
        handler()
      } catch (error) {
        this.log.error({ err: error }, 'cluster resync handler failed')
      }
    }
  }

  private async connect (): Promise<void> {
    const client = new pg.Client({
      connectionString: this.database.url, connectionTimeoutMillis: 5000, keepAlive: true, application_name: `shoutbox-listen:${this.database.schema}`
    })
    client.on('notification', notice => {
      if (notice.channel !== this.channel || notice.payload === undefined || notice.payload.startsWith(this.ownPrefix)) return
      const message = parseJson(notice.payload)
      if (isMessage(message) && message.origin !== this.origin) this.deliver(message.topic, message.payload)
    })
    const lost = (error?: Error): void => {
      if (this.client !== client) return
      this.client = undefined
      this.linked = false
      this.log.warn({ err: error }, 'lost the database notification link; caches are bypassed until it is back')
      this.resync()
      client.end().catch(() => {})
      this.scheduleReconnect()
    }
    client.on('error', lost)
    client.on('end', () => lost())
    try {
      await client.connect()
      await client.query(`listen ${client.escapeIdentifier(this.channel)}`)
    } catch (error) {
      client.end().catch(() => {})
      if (this.stopped) return
      this.log.warn({ err: error }, 'cannot open the database notification link; retrying')
      this.scheduleReconnect()
      return
    }
    if (this.stopped) {
      await client.end().catch(() => {})
      return
    }
    this.client = client
    this.linked = true
    this.retryDelay = 100
    // Whatever changed while we were not listening is unknown: start caches afresh.
    this.resync()
  }

  private scheduleReconnect (): void {
    if (this.stopped) return
    clearTimeout(this.retryTimer)
    this.retryTimer = setTimeout(() => { void this.connect() }, this.retryDelay)
    this.retryTimer.unref()
    this.retryDelay = Math.min(this.retryDelay * 2, 5000)
  }
}
