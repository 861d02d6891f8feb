import http from 'node:http'
import net from 'node:net'
import { isTaken } from './take-socket.js'

/** Turns of the event loop a stop lets go by to accept what waits in the listen queue, at most: Node's backlog (511) and a margin. */
const MAX_QUEUE_LOOKS = 600

/**
 * One accepted connection: its answers in progress, and how much it had read when the last
 * one ended. An array rather than a Set: it holds one answer at a time (more only when a
 * client pipelines), and emptied it keeps its room, where a Set makes a new table as it
 * grows and shrinks — two allocations a request, each held by this long-lived connection
 * until the next collection.
 */
interface Connection {
  readonly responses: http.ServerResponse[]
  bytesAtRest: number
  /** When the process accepted it (Date.now()). */
  readonly acceptedAt: number
}

/** What a stop did, emitted as `drained` once every connection has closed. */
export interface DrainReport {
  /** Connections the process accepted, since it started. */
  readonly accepted: number
  /** Requests received on them, and of those, answered in full. */
  readonly requests: number
  readonly answered: number
  /** Connections open when the stop began. */
  readonly openAtStop: number
  /** Requests answered after the stop began. */
  readonly answeredWhileStopping: number
  /** Idle connections closed by the stop (no request in progress or arriving). */
  readonly closedIdle: number
}

/**
 * An HTTP server whose `close()` answers every request that reached the process.
 *
 * Node's `close()` (and Fastify's, which calls `closeIdleConnections()` too, as did the
 * host's sweep every 100 ms) destroys every keep-alive connection between two requests,
 * including those whose next request is already on its way: those clients, having sent
 * a request, get a reset and no answer. Here `close()` accepts what waits in the listen
 * queue, stops listening, and then:
 *
 * - answers in progress finish, and carry `Connection: close` if their head is not yet
 *   sent, so their connection closes once they are done;
 * - every request that arrives on an open connection is served the same way;
 * - an idle connection (none in progress, not one byte of a next request read) is
 *   closed once `graceMs` have passed since the stop began, long enough for a request
 *   sent before the stop to arrive; a connection in the middle of receiving a request
 *   is left to finish it (the server's request timeouts still bound it).
 *
 * The callback of `close()` runs, as Node's does, once every connection has closed.
 * A connection taken from HTTP (an event stream's, take-socket.ts) leaves this class's
 * bookkeeping, and `openAtStop` does not count it: its taker ends it (the host's event
 * streams end when the stop begins, in Fastify's preClose), and `close()` waits for it
 * all the same.
 */
export class DrainingServer extends http.Server {
  private readonly open = new Map<net.Socket, Connection>()
  private draining = false
  private graceOver = false
  private closing: Promise<Error | undefined> | undefined
  private readonly counts = { accepted: 0, requests: 0, answered: 0, openAtStop: 0, answeredWhileStopping: 0, closedIdle: 0 }
  private readonly onEnded: (this: http.ServerResponse) => void

  constructor (options: http.ServerOptions, listener: http.RequestListener, private readonly graceMs: number) {
    super(options, (request, response) => {
      this.track(request.socket, response)
      listener(request, response)
    })
    // One function, shared by every answer, not a closure each (an event stream holds its
    // socket for hours; a list answer is sent tens of thousands of times a second): Node
    // calls it with the emitter as `this`. One listener an answer, on `close`, which
    // follows `finish` when the answer was sent in full.
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the listeners' own `this` is the emitter
    const server = this
    function forget (this: net.Socket): void {
      server.open.delete(this)
    }
    function ended (this: http.ServerResponse): void {
      server.ended(this)
    }
    this.onEnded = ended
    this.on('connection', (socket: net.Socket) => {
      this.counts.accepted++
      const connection: Connection = { responses: [], bytesAtRest: 0, acceptedAt: Date.now() }
      this.open.set(socket, connection)
      socket.on('close', forget)
      // Accepted from the listen queue while stopping: it has a grace of its own to send its request.
      if (this.draining) setTimeout(() => this.closeIfIdle(socket, connection), this.graceMs).unref()
    })
  }

  private track (socket: net.Socket, response: http.ServerResponse): void {
    const connection = this.open.get(socket)
    if (connection === undefined) return
    connection.responses.push(response)
    this.counts.requests++
    if (this.draining) response.shouldKeepAlive = false
    response.on('close', this.onEnded)
  }

  private ended (response: http.ServerResponse): void {
    const socket = response.req.socket
    // Sent in full, or (an event stream's) handed to its taker, which emits finish first.
    const taken = isTaken(socket)
    if (response.writableFinished || taken) {
      this.counts.answered++
      if (this.draining) this.counts.answeredWhileStopping++
    }
    // Taken from HTTP (an event stream's): no longer a connection of this server's to drain; its taker ends it.
    if (taken) {
      this.open.delete(socket)
      return
    }
    const connection = this.open.get(socket)
    if (connection === undefined) return
    const { responses } = connection
    // The oldest in progress, nearly always: answers end in the order their requests came.
    const at = responses[0] === response ? 0 : responses.indexOf(response)
    // pop keeps the array's room (setting its length to 0 would let it go).
    if (at === 0 && responses.length === 1) responses.pop()
    else if (at !== -1) responses.splice(at, 1)
    connection.bytesAtRest = socket.bytesRead
    if (this.graceOver) this.closeIfIdle(socket, connection)
  }

  private closeIfIdle (socket: net.Socket, connection: Connection): void {
    // Younger than the grace (accepted from the listen queue while stopping): its own timer comes.
    if (this.draining && Date.now() - connection.acceptedAt < this.graceMs - 10) return
    // Bytes read since the last answer ended are the start of a request: let it come.
    if (connection.responses.length === 0 && socket.bytesRead === connection.bytesAtRest) {
      this.counts.closedIdle++
      socket.destroy()
    }
  }

  /**
   * Stops listening and drains the open connections (see the class). `callback` runs once
   * they are all closed — on every call: the host calls it at the signal, so that no
   * more connections queue up, and Fastify again when it closes — and `drained` is
   * emitted then with a DrainReport.
   */
  override close (callback?: (error?: Error) => void): this {
    this.closing ??= this.drain()
    void this.closing.then(error => callback?.(error))
    return this
  }

  private drain (): Promise<Error | undefined> {
    this.draining = true
    this.counts.openAtStop = this.open.size
    for (const { responses } of this.open.values()) {
      for (const response of responses) if (!response.headersSent) response.shouldKeepAlive = false
    }
    setTimeout(() => {
      this.graceOver = true
      for (const [socket, connection] of this.open) this.closeIfIdle(socket, connection)
    }, this.graceMs).unref()
    return new Promise(resolve => {
      this.whenListenQueueIsEmpty(() => {
        // Not http.Server's close: it would destroy the idle connections at once.
        net.Server.prototype.close.call(this, (error?: Error) => {
          this.emit('drained', { ...this.counts } satisfies DrainReport)
          resolve(error)
        })
      })
    })
  }

  /**
   * Runs `then` once the listen queue is empty. The connections the kernel completed
   * before the stop (waiting there while the process was busy) would be reset by closing
   * the listener now; Node accepts one connection per turn of the event loop, so turns
   * are let go by until two in a row (the first may have begun before the stop) accept
   * none. The kernel queues at most the listen backlog (511), which bounds the turns.
   */
  private whenListenQueueIsEmpty (then: () => void): void {
    let quiet = 0
    let turns = 0
    let seen = this.counts.accepted
    const look = (): void => {
      quiet = this.counts.accepted === seen ? quiet + 1 : 0
      seen = this.counts.accepted
      if (quiet >= 2 || ++turns > MAX_QUEUE_LOOKS) then()
      else setImmediate(look)
    }
    setImmediate(look)
  }

  /** Fastify calls this on close unless told not to; idle connections are this class's to close. */
  override closeIdleConnections (): void {
    if (!this.draining) super.closeIdleConnections()
  }
}
