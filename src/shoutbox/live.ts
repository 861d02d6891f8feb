import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { AddonContext, Transaction } from '../sdk/index.js'
import { eventsRepository, type ShoutEvent, type ShoutEventKind } from './events-repository.js'
import { perContext } from './per-context.js'
import type { Settings } from './schemas.js'
import { readSettings } from './settings.js'
import { shoutsRepository } from './shouts-repository.js'

/** The cluster topic every change of the list is announced on. */
const CHANGED = 'changed'
const LIST_PATH = '/api/shoutbox/list'

interface Notice {
  readonly kind: ShoutEventKind | 'settings'
  /** The stream events the change wrote, in order. */
  readonly eventIds?: readonly number[]
}

export interface RenderedList {
  /** The answer's bytes, encoded once. */
  readonly body: Buffer
  readonly etag: string
}

const HEARTBEAT_MS = 15_000
/** A client this far behind is cut off rather than buffered without end. */
const MAX_BUFFERED_BYTES = 1 << 20

/**
 * What makes the list fast and live, per host process:
 *
 * - the list answer, serialised once and served from memory until a publish, a delete
 *   or a settings change — from this process or any other — announces itself on the
 *   cluster (PostgreSQL NOTIFY, sent inside the writing transaction, so only on commit);
 * - the live stream's subscribers, who get each change as a Server-Sent Event.
 *
 * While the notification link is down nothing is cached: every list request reads
 * the database, so no process serves a stale list.
 */
export class ShoutboxLive {
  static readonly of = perContext(ctx => new ShoutboxLive(ctx))

  private cached: RenderedList | undefined
  private filling: Promise<RenderedList> | undefined
  private generation = 0
  private cachedSettings: Settings | undefined
  private settingsGeneration = 0
  private readonly streams = new Set<Stream>()
  private deliveries: Promise<void> = Promise.resolve()
  private timers: NodeJS.Timeout[] = []

  private constructor (private readonly ctx: AddonContext) {}

  start (): void {
    this.ctx.cluster.subscribe(CHANGED, payload => this.onNotice(payload))
    this.ctx.cluster.onResync(() => this.invalidate())
    this.timers.push(setInterval(() => this.heartbeat(), HEARTBEAT_MS).unref())
    const prune = (): void => { eventsRepository(this.ctx.db).prune().catch(error => this.ctx.log.warn({ err: error }, 'pruning stream history failed')) }
    this.timers.push(setInterval(prune, 3_600_000).unref())
    prune()
  }

  /** Ends every stream (so the host can stop) and forgets the cache. */
  stop (): void {
    for (const timer of this.timers) clearInterval(timer)
    this.timers = []
    for (const stream of this.streams) stream.res.end()
    this.streams.clear()
    this.invalidate()
  }

  /** Announces a change; delivered (and the caches dropped) everywhere once `trx` commits. */
  async announce (trx: Transaction, kind: ShoutEventKind | 'settings', eventIds?: readonly number[]): Promise<void> {
    const notice: Notice = eventIds === undefined ? { kind } : { kind, eventIds }
    await this.ctx.cluster.notify(CHANGED, JSON.stringify(notice), trx)
  }

  /** The settings, from memory when they are known to be current. */
  async settings (): Promise<Settings> {
    if (this.cachedSettings !== undefined) return this.cachedSettings
    const generation = this.settingsGeneration
    const linked = this.ctx.cluster.linked
    const settings = await readSettings(this.ctx)
    if (linked && this.ctx.cluster.linked && generation === this.settingsGeneration) this.cachedSettings = settings
    return settings
  }

  /** The list answer as JSON, from memory when it is known to be current. */
  list (): Promise<RenderedList> {
    if (this.cached !== undefined) return Promise.resolve(this.cached)
    // Concurrent misses share one database read.
    this.filling ??= this.fill()
    return this.filling
  }

  private async fill (): Promise<RenderedList> {
    const generation = this.generation
    const linked = this.ctx.cluster.linked
    try {
      const { maxShouts } = await this.settings()
      const shouts = await shoutsRepository(this.ctx.db).list(maxShouts)
      const body = Buffer.from(JSON.stringify({ result: 'ok', shouts }))
      const rendered = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
      // A change announced while we read may not be in what we read: keep it only if none was.
      if (linked && this.ctx.cluster.linked && generation === this.generation) {
        this.cached = rendered
        this.ctx.answers.remember(LIST_PATH, { body, etag: rendered.etag, headers: { 'cache-control': 'no-cache' } })
      }
      return rendered
    } finally {
      if (generation === this.generation) this.filling = undefined
    }
  }

  /** Drops the list; with `settingsToo`, the settings as well. */
  private invalidate (settingsToo = true): void {
    this.generation++
    this.ctx.answers.forget(LIST_PATH)
    this.cached = undefined
    this.filling = undefined
    if (settingsToo) {
      this.settingsGeneration++
      this.cachedSettings = undefined
    }
  }

  private onNotice (payload: string): void {
    let notice: Notice
    try {
      notice = JSON.parse(payload) as Notice
    } catch {
      this.invalidate()
      return
    }
    this.invalidate(notice.kind === 'settings')
    const { eventIds } = notice
    if (eventIds === undefined || eventIds.length === 0 || this.streams.size === 0) return
    // One notice at a time, in the order the commits were announced.
    this.deliveries = this.deliveries
      .then(() => eventsRepository(this.ctx.db).find(eventIds))
      .then(events => { for (const event of events) this.broadcast(event) })
      .catch(error => this.ctx.log.warn({ err: error, eventIds }, 'could not deliver stream events'))
  }

  private broadcast (event: ShoutEvent): void {
    const frame = frameOf(event)
    for (const stream of this.streams) stream.send(event.id, frame)
  }

  private heartbeat (): void {
    for (const stream of this.streams) stream.write(': ping\n\n')
  }

  /**
   * Takes over `res` as an event stream. With `lastEventId` (a reconnect), the events
   * since then are sent first; otherwise the stream starts now.
   */
  async subscribe (res: ServerResponse, lastEventId: number | undefined): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive'
    })
    res.write('retry: 3000\n\n')
    const stream = new Stream(res, () => this.streams.delete(stream))
    this.streams.add(stream)
    res.on('close', () => this.streams.delete(stream))
    try {
      const events = eventsRepository(this.ctx.db)
      const from = lastEventId ?? await events.latestId()
      const missed = lastEventId === undefined ? [] : await events.after(from)
      if (lastEventId === undefined) stream.write(`id: ${from}\nevent: ready\ndata: {}\n\n`)
      stream.catchUp(missed.map(event => [event.id, frameOf(event)]))
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not start a stream')
      res.end()
    }
  }
}

function frameOf (event: ShoutEvent): string {
  // The fields in the list's order (jsonb keeps its own).
  const { id, message, username, date } = event.shout
  return `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify({ id, message, username, date })}\n\n`
}

/** One subscriber. Events that arrive while it catches up are held, then sent once. */
class Stream {
  private held: Array<[number, string]> | undefined = []

  constructor (readonly res: ServerResponse, private readonly drop: () => void) {}

  send (id: number, frame: string): void {
    if (this.held !== undefined) this.held.push([id, frame])
    else this.write(frame)
  }

  catchUp (missed: Array<[number, string]>): void {
    const sent = new Set<number>()
    for (const [id, frame] of missed) {
      sent.add(id)
      this.write(frame)
    }
    const held = this.held ?? []
    this.held = undefined
    for (const [id, frame] of held) if (!sent.has(id)) this.write(frame)
  }

  write (text: string): void {
    if (this.res.writableEnded) return
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.drop()
      this.res.destroy()
      return
    }
    this.res.write(text)
  }
}
