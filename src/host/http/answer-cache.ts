import { createHash } from 'node:crypto'
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import { isStreamedList, type StreamedList } from '../../sdk/index.js'
import type { Cluster } from '../services/cluster.js'
import { EVERY_ANSWER, JSON_TYPE } from './headers.js'

/**
 * A kept answer: its fields, and — made on first use, once — its bytes and its heads for
 * 200 and 304. A change applied in place costs nothing more until someone reads the list.
 */
/** How a kept answer goes out: status, head and body (none for a 304). */
export interface Sent {
  readonly status: 200 | 304
  readonly head: OutgoingHttpHeaders
  readonly body: Buffer | undefined
}

export class KeptAnswer {
  private encoded: { body: Buffer, etag: string, ok: Sent, notModified: Sent } | undefined

  /** @param madeAt when `handle` made the answer this one was updated from */
  constructor (readonly fields: Readonly<Record<string, unknown>>, readonly madeAt = Date.now()) {}

  private get wire () {
    if (this.encoded === undefined) {
      const body = Buffer.from(JSON.stringify({ result: 'ok', ...this.fields }))
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      // Clients may keep it too, but must ask again (If-None-Match) before using it.
      const common = { ...EVERY_ANSWER, 'cache-control': 'no-cache', etag }
      // Both ways it can go out, made once: a request only picks one.
      this.encoded = {
        body,
        etag,
        ok: { status: 200, head: { ...common, 'content-type': JSON_TYPE, 'content-length': body.length }, body },
        notModified: { status: 304, head: common, body: undefined }
      }
    }
    return this.encoded
  }

  get body (): Buffer {
    return this.wire.body
  }

  get etag (): string {
    return this.wire.etag
  }

  /** How it goes out: 304 with no body when the client holds it already. */
  answerFor (ifNoneMatch: string | undefined): Sent {
    const { etag, ok, notModified } = this.wire
    return matchesEtag(ifNoneMatch, etag) ? notModified : ok
  }
}

/** `If-None-Match` may list several tags, weak or strong, or `*`; most often it is the one tag a client was given. */
function matchesEtag (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  if (header === etag) return true
  return header.split(',').some(tag => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`
  })
}

/** What a cached answer's notices did, for tests and metrics. */
export interface CacheCounts {
  /** Answers sent from it, before Fastify or through it. */
  served: number
  /** Answers made by the endpoint's `handle` (after a start, a drop, or a change it could not apply). */
  made: number
  /** Notices applied to the kept answer in place. */
  updated: number
  /** Notices that dropped it. */
  dropped: number
}

export type CacheUpdate = (previous: Readonly<Record<string, unknown>>, notice: string) => Record<string, unknown> | undefined

/** An answer updated in place is made anew from the database at least this often, so a row written behind the host's back (by hand, in SQL) shows within a minute. */
const MAX_AGE_MS = 60_000
/**
 * An answer larger than this is sent but not kept: a list with `maxShouts` unset on a big
 * board (every shout; 105 MB for a million) would otherwise stay in memory for good. It is
 * made anew for each request instead, which costs the database and the process, not the
 * memory (the panel warns the administrator to set `maxShouts`).
 */
export const MAX_KEPT_BYTES = 1024 * 1024

/**
 * One cacheable endpoint's answer (CachePolicy in the SDK). A notice on its topic, from any
 * process, is applied to the kept answer by the endpoint's `update` and the new answer
 * swapped in at once; when there is no `update`, or it cannot be sure, or the answer was
 * made over a minute ago, or notices may have been missed (the link was down), the answer
 * is dropped and made anew by `handle`. While the link is down nothing is kept.
 */
export class CachedAnswer {
  readonly counts: CacheCounts = { served: 0, made: 0, updated: 0, dropped: 0 }
  private kept: KeptAnswer | undefined
  private making: Promise<KeptAnswer | StreamedList> | undefined
  private generation = 0

  constructor (private readonly cluster: Cluster, topic: string, private readonly update: CacheUpdate | undefined, private readonly log: FastifyBaseLogger) {
    cluster.subscribe(topic, notice => this.onNotice(notice))
    cluster.onResync(() => this.drop())
  }

  get current (): KeptAnswer | undefined {
    return this.kept
  }

  /**
   * The kept answer, or one made now by `handle` (concurrent misses share one). A
   * StreamedList from `handle` is passed on and never kept: each request that gets it
   * reads its own batches.
   */
  get (handle: () => Promise<Record<string, unknown> | StreamedList>): Promise<KeptAnswer | StreamedList> {
    if (this.kept !== undefined) return Promise.resolve(this.kept)
    this.making ??= this.make(handle)
    return this.making
  }

  private async make (handle: () => Promise<Record<string, unknown> | StreamedList>): Promise<KeptAnswer | StreamedList> {
    const generation = this.generation
    const linked = this.cluster.isLinked
    try {
      const made = await handle()
      this.counts.made++
      if (isStreamedList(made)) return made
      const answer = new KeptAnswer(made)
      // A change announced while it was being made may not be in it: keep it only if none
      // was; and only if it is small enough to keep.
      if (linked && this.cluster.isLinked && generation === this.generation && answer.body.length <= MAX_KEPT_BYTES) this.kept = answer
      return answer
    } finally {
      if (generation === this.generation) this.making = undefined
    }
  }

  private onNotice (notice: string): void {
    const kept = this.kept
    if (kept === undefined || this.update === undefined || !this.cluster.isLinked || Date.now() - kept.madeAt > MAX_AGE_MS) {
      this.drop()
      return
    }
    let next: Record<string, unknown> | undefined
    try {
      next = this.update(kept.fields, notice)
    } catch (error) {
      this.log.warn({ err: error }, 'a cached answer could not be updated; it is made anew')
    }
    if (next === undefined) {
      this.drop()
      return
    }
    // The same fields: nothing changed for this answer; it stays, encoded as it is.
    if (next === kept.fields) return
    this.kept = new KeptAnswer(next, kept.madeAt)
    this.counts.updated++
  }

  private drop (): void {
    this.generation++
    if (this.kept !== undefined || this.making !== undefined) this.counts.dropped++
    this.kept = undefined
    this.making = undefined
  }
}

/**
 * The cacheable answers of this process, by path, and the fast path: the HTTP server asks
 * here first, before Fastify runs, so a kept answer costs what a bare node:http server
 * costs. A miss, or anything else, goes to Fastify, whose route makes the answer.
 */
export class AnswerCache {
  private readonly byPath = new Map<string, CachedAnswer>()

  /**
   * @param isOpen whether the platform serves now (started, not stopping)
   * @param requestLog when requests are logged, the fast path logs its answers too
   */
  constructor (private readonly cluster: Cluster, private readonly isOpen: () => boolean, private readonly requestLog: FastifyBaseLogger | undefined) {}

  declare (path: string, topic: string, update: CacheUpdate | undefined, log: FastifyBaseLogger): CachedAnswer {
    const cached = new CachedAnswer(this.cluster, topic, update, log)
    this.byPath.set(path, cached)
    return cached
  }

  /** The cached answer of `path`, if its endpoint declared one. */
  of (path: string): CachedAnswer | undefined {
    return this.byPath.get(path)
  }

  /** Every cached answer, by path. */
  entries (): IterableIterator<[string, CachedAnswer]> {
    return this.byPath.entries()
  }

  /** True when it answered. */
  serve (request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET' || this.byPath.size === 0) return false
    const url = request.url ?? ''
    const query = url.indexOf('?')
    const cached = this.byPath.get(query === -1 ? url : url.slice(0, query))
    const kept = cached?.current
    if (kept === undefined || !this.isOpen()) return false
    cached!.counts.served++
    const started = this.requestLog === undefined ? 0 : performance.now()
    const { status, head, body } = kept.answerFor(request.headers['if-none-match'])
    response.writeHead(status, head)
    response.end(body)
    this.requestLog?.info({ req: { method: 'GET', url, remoteAddress: request.socket.remoteAddress }, res: { statusCode: response.statusCode }, responseTime: performance.now() - started },
      'request completed (kept answer)')
    return true
  }
}

