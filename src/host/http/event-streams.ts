import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { EventFrame, ServiceUnavailable, TooManyRequests, type EventStream } from '../../sdk/index.js'
import { clientKey } from '../../sdk/client-address.js'
import { EVERY_ANSWER } from './headers.js'
import { canTake, endSoon, takeSocket } from './take-socket.js'

const HEARTBEAT_MS = 15_000
const HEARTBEAT = new EventFrame(': ping\n\n')
/** A client this far behind is cut off rather than buffered without end. */
const MAX_BUFFERED_BYTES = 1 << 20
/** What a refused client is told to wait: streams end when their clients leave, at no set time. */
const RETRY_AFTER_SECONDS = 10

const HEAD = {
  ...EVERY_ANSWER,
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx would otherwise hold events back in its buffer.
  'x-accel-buffering': 'no',
  connection: 'keep-alive'
}
const TAKEN_HEAD = { ...HEAD, connection: 'close' }

export interface StreamLimits {
  /** Open streams one client (see `clientKey`) may hold. */
  readonly perClient: number
  /** Open streams of the whole process. */
  readonly total: number
  /**
   * Streams one client may open a minute, after a first burst of twice `perClient` (all
   * its streams dropped and reopened, twice over). A reconnect's open reads up to a
   * thousand missed events from the history: opening and closing in a loop must not make
   * the database read them again and again.
   */
  readonly opensPerMinute: number
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perClient: 20, total: 10_000, opensPerMinute: 60 }

/**
 * Every open event stream of this process: the host admits them (at most `perClient`
 * per client address and `total` in all, so one client cannot hold every socket and
 * every byte of buffer the process has), writes their head, keeps idle connections (and
 * proxies) from timing out with a comment every 15 s, cuts off clients that stop
 * reading, and ends them all when the host stops.
 */
/** The session a stream was opened with: its token's hash, and whose it is. */
export interface StreamSession {
  readonly hash: string
  readonly userId: number
}

export class EventStreams {
  private readonly open = new Set<OpenStream>()
  /** The session each stream opened with a session cookie was opened with. */
  private readonly sessions = new Map<OpenStream, StreamSession>()
  private readonly perClient = new Map<string, number>()
  private readonly opens: OpenAllowance
  private readonly heartbeat: NodeJS.Timeout
  /** Set when the host stops: a stream opened then would hold the stop up until its deadline. */
  private ended = false

  constructor (private readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS) {
    this.opens = new OpenAllowance(2 * limits.perClient, limits.opensPerMinute)
    this.heartbeat = setInterval(() => {
      for (const stream of this.open) stream.write(HEARTBEAT)
      this.opens.forgetFull()
    }, HEARTBEAT_MS).unref()
  }

  get size (): number {
    return this.open.size
  }

  /**
   * Admits a stream for the client at `address`, then has `takeOver` hand over the raw
   * answer (a hijacked reply) and writes the stream's head. Beyond a limit it throws
   * TooManyRequests before `takeOver` runs, so nothing has been written and the caller
   * answers with the error envelope as for any other error. Once the host is stopping,
   * every stream is refused with ServiceUnavailable.
   */
  start (address: string, takeOver: () => ServerResponse, session?: StreamSession): EventStream {
    if (this.ended) throw new ServiceUnavailable()
    const client = clientKey(address)
    const held = this.perClient.get(client) ?? 0
    if (held >= this.limits.perClient || this.open.size >= this.limits.total) throw new TooManyRequests(RETRY_AFTER_SECONDS)
    const wait = this.opens.take(client)
    if (wait > 0) throw new TooManyRequests(wait)
    const response = takeOver()
    const head = response.req.method === 'HEAD'
    // A stream whose socket will be taken (OpenStream) ends its connection when it ends.
    response.writeHead(200, !head && canTake(response) ? TAKEN_HEAD : HEAD)
    // A HEAD request gets the head and no stream: its answer has no body to hold open.
    if (head) response.end()
    // Browsers reconnect after 3 s, sending Last-Event-ID.
    else response.write('retry: 3000\n\n')
    const stream = new OpenStream(response, () => {
      this.open.delete(stream)
      const left = (this.perClient.get(client) ?? 1) - 1
      if (left > 0) this.perClient.set(client, left)
      else this.perClient.delete(client)
    })
    // Counted once it exists (its making runs the request's end listeners): it is forgotten when it closes.
    this.perClient.set(client, held + 1)
    this.open.add(stream)
    if (session !== undefined) {
      this.sessions.set(stream, session)
      stream.onClose(() => this.sessions.delete(stream))
    }
    return stream
  }

  /**
   * Ends the streams opened with sessions that ended: with the one whose token hashes to
   * `hash`, or with any of `userId`'s but `keep`. Their readers reconnect as who they are now.
   */
  endSessions (ended: { hash: string } | { userId: number, keep: string | null }): void {
    for (const [stream, session] of this.sessions) {
      const gone = 'hash' in ended ? session.hash === ended.hash : session.userId === ended.userId && session.hash !== ended.keep
      if (gone) stream.end()
    }
  }

  endAll (): void {
    this.ended = true
    clearInterval(this.heartbeat)
    for (const stream of this.open) stream.end()
  }
}

/**
 * How many streams each client may open now: a bucket of `burst` opens per client,
 * refilled at `perMinute`. Only an admitted open takes one; a refusal costs nothing.
 */
class OpenAllowance {
  private readonly clients = new Map<string, { left: number, at: number }>()

  constructor (private readonly burst: number, private readonly perMinute: number) {}

  /** 0 when `client` may open a stream now (and it is counted); else the whole seconds to wait. */
  take (client: string, now = Date.now()): number {
    const bucket = this.refilled(client, now)
    if (bucket.left >= 1) {
      bucket.left--
      this.clients.set(client, bucket)
      return 0
    }
    return Math.max(1, Math.ceil((1 - bucket.left) * 60 / this.perMinute))
  }

  /** Forgets the clients whose bucket is full again: they are as if never seen. */
  forgetFull (now = Date.now()): void {
    for (const client of this.clients.keys()) if (this.refilled(client, now).left >= this.burst) this.clients.delete(client)
  }

  private refilled (client: string, now: number): { left: number, at: number } {
    const bucket = this.clients.get(client)
    if (bucket === undefined) return { left: this.burst, at: now }
    bucket.left = Math.min(this.burst, bucket.left + (now - bucket.at) * this.perMinute / 60_000)
    bucket.at = now
    return bucket
  }
}

/**
 * One open stream. Once its head and `retry` line are out, its socket is taken from
 * node:http (take-socket.ts) and the stream writes to it alone: a reader then costs its
 * socket, not an HTTP exchange. An answer that cannot give up its socket (one queued
 * behind another on its connection, a HEAD's ended one) stays Node's and is written
 * through.
 */
class OpenStream implements EventStream {
  private forgotten = false
  /** Whether frames go out as chunks of a chunked body (HTTP/1.1) or as they are (HTTP/1.0). */
  private readonly chunked: boolean
  /**
   * Where the stream writes: the socket once taken from node:http (the answer is then let
   * go, with the request and Fastify's reply), else the answer Node holds.
   */
  private readonly to: { readonly socket: Socket } | { readonly response: ServerResponse }

  constructor (response: ServerResponse, forget: () => void) {
    this.chunked = response.chunkedEncoding
    const socket = response.writableEnded ? null : takeSocket(response)
    this.to = socket === null ? { response } : { socket }
    const once = (): void => {
      if (this.forgotten) return
      this.forgotten = true
      forget()
    }
    const closing = socket ?? response
    closing.on('close', once)
    // A client gone before its stream started sends no 'close' any more.
    if (closing.destroyed) queueMicrotask(once)
  }

  private get writable (): Socket | ServerResponse {
    return 'socket' in this.to ? this.to.socket : this.to.response
  }

  get closed (): boolean {
    const writable = this.writable
    return writable.writableEnded || writable.destroyed
  }

  /**
   * Once the stream holds its socket, the head has gone out and the socket carries only
   * the body: each frame is written to it straight, as one ready piece (a chunk of the
   * chunked body, or for an HTTP/1.0 client the bytes alone) made once for every stream.
   * One socket write a frame, nothing encoded per stream. An answer still queued behind
   * another on its connection (HTTP pipelining) has no socket yet; Node holds its writes.
   */
  write (frame: EventFrame): void {
    // An empty chunk would be the chunked body's last one.
    if (this.closed || frame.bytes.length === 0) return
    const writable = this.writable
    if (writable.writableLength > MAX_BUFFERED_BYTES) {
      writable.destroy()
      return
    }
    const socket = 'socket' in this.to ? this.to.socket : this.to.response.socket
    if (socket === null) (writable as ServerResponse).write(frame.bytes)
    else socket.write(this.chunked ? chunkOf(frame) : frame.bytes)
  }

  /** Ends the body (the last chunk, for a chunked one) and, for a taken socket, the connection. */
  end (): void {
    if (this.closed) return
    if ('response' in this.to) {
      this.to.response.end()
      return
    }
    if (this.chunked) this.to.socket.write(LAST_CHUNK)
    endSoon(this.to.socket)
  }

  /** Runs `listener` when the stream closes; soon, if it has closed already (its 'close' came and went). */
  onClose (listener: () => void): void {
    const writable = this.writable
    if (this.forgotten || writable.destroyed) queueMicrotask(listener)
    else writable.on('close', listener)
  }
}

const CRLF = Buffer.from('\r\n')
const LAST_CHUNK = Buffer.from('0\r\n\r\n')
const chunks = new WeakMap<EventFrame, Buffer>()

/** `frame` as a chunk of a chunked body (RFC 9112, 7.1), made once per frame. */
function chunkOf (frame: EventFrame): Buffer {
  let chunk = chunks.get(frame)
  if (chunk === undefined) {
    chunk = Buffer.concat([Buffer.from(`${frame.bytes.length.toString(16)}\r\n`), frame.bytes, CRLF])
    chunks.set(frame, chunk)
  }
  return chunk
}
