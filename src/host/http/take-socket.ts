import { createRequire } from 'node:module'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Taking a connection out of node:http once an answer's head and first bytes are on it,
 * as Node itself does for an upgrade (a WebSocket): from then on the socket is the
 * taker's, and node:http neither reads nor writes it again.
 *
 * Why: an event stream's reader holds its connection for hours. While node:http owns
 * it, it keeps for each reader an HTTP parser (with room for 32 headers), the request,
 * the answer and their listeners, and through those Fastify's request, reply and
 * logger: 13.0 KiB of resident memory a reader with 10,000 of them. Taken, a reader
 * costs its socket and the stream's own objects: 6.7 KiB (docs/performance.md, "Memory
 * per reader").
 *
 * Node has no public call for it. This does what its upgrade path does
 * (lib/_http_server.js, `onParserExecuteCommon`): the server's listeners come off the
 * socket, the parser goes back to Node's pool (`freeParser`, which `_http_common`
 * exports) and the answer lets go of the socket. Each listener is found by the name
 * Node gives it (the same in Node 20 and 24); if one is missing, or `_http_common` no
 * longer exports `freeParser`, nothing is taken and the answer stays Node's, so a stream
 * works on any Node, at the old cost.
 * `test/host/http/event-stream-wire.test.ts` runs on each Node version CI runs and
 * fails if the socket is not taken.
 *
 * The exchange is over as HTTP: the answer emits `finish` and `close` (Node's own
 * `finish` listener removed first: it would keep the connection for a next request),
 * so Fastify logs and counts the request, and the server's drain forgets the answer.
 * (Node's own end of an answer, skipped with its listener, also tells the
 * `http.server.response.finish` diagnostics channel, which the host does not use.)
 */

/** Node's own parser release; undefined should a Node no longer export it (nothing is taken then). */
const freeParser = ((): ((parser: unknown, request: unknown, socket: unknown) => void) | undefined => {
  try {
    return (createRequire(import.meta.url)('_http_common') as { freeParser?: (parser: unknown, request: unknown, socket: unknown) => void }).freeParser
  } catch {
    return undefined
  }
})()

/** How long a taken socket that is ending may take to send what it holds before it is cut. */
const ENDING_GRACE_MS = 10_000

/** node:http's listeners on a server socket, by event: what `connectionListenerInternal` adds. */
const SERVER_LISTENERS: ReadonlyArray<readonly [string, string]> = [
  ['data', 'bound socketOnData'],
  ['end', 'bound socketOnEnd'],
  ['close', 'bound socketOnClose'],
  ['drain', 'bound socketOnDrain'],
  ['error', 'socketOnError'],
  ['timeout', 'socketOnTimeout'],
  ['resume', 'onSocketResume'],
  ['pause', 'onSocketPause']
]
/** node:http's `finish` listener on an answer: it readies the connection for the next request. */
const NEXT_REQUEST_LISTENER = 'bound resOnFinish'

/** The sockets taken, so that the server's drain leaves them to their taker. */
const taken = new WeakSet<Socket>()

type Listener = (...args: unknown[]) => void

function listenerNamed (emitter: NodeJS.EventEmitter, event: string, name: string): Listener | undefined {
  return (emitter.listeners(event) as Listener[]).find(listener => listener.name === name)
}

/**
 * Whether `response`'s socket can be taken once its head is written: it holds one, not
 * closed, and node:http's listeners are where they are expected. Asked before the head,
 * which then says `Connection: close`: a taken connection ends with its stream, and the
 * client must not wait to send another request on it.
 */
export function canTake (response: ServerResponse): boolean {
  return serverListeners(response) !== undefined
}

/**
 * Takes `response`'s socket from node:http, or returns null and changes nothing when it
 * cannot (see canTake; and Node must hold no bytes of the answer still). The head must
 * have been written.
 */
export function takeSocket (response: ServerResponse): Socket | null {
  const found = serverListeners(response)
  if (found === undefined || !response.headersSent || (response as unknown as { outputData: unknown[] }).outputData.length > 0) return null
  const { socket, onSocket, nextRequest } = found
  for (const [event, listener] of onSocket) socket.removeListener(event, listener)
  freeParser!(socket.parser, response.req, socket)
  response.removeListener('finish', nextRequest)
  response.detachSocket(socket)
  taken.add(socket)

  // What the server's listeners did, the taker's way: the peer's close is read (what it
  // sends is dropped) and its half-close closes the socket. The server's silence timer
  // goes while the taker writes: each write would reset it, so it would cost a timer
  // (kept by Node even once cleared) and a reset a write, for a close that a writing
  // taker never gets. Once the socket is ending (endSoon) a timer bounds it again.
  socket.setTimeout(0)
  const timer = Object.getOwnPropertySymbols(socket).find(symbol => symbol.description === 'timeout')
  if (timer !== undefined) (socket as unknown as Record<symbol, unknown>)[timer] = null
  socket.on('data', ignore)
  socket.on('error', ignore)
  socket.on('end', closeOnHalfClose)
  socket.resume()

  response.emit('finish')
  response.emit('close')
  return socket
}

/**
 * Ends a taken socket once what it holds is sent, and destroys it should that take longer
 * than `graceMs` (a peer that reads nothing more would otherwise hold it for good).
 */
export function endSoon (socket: Socket, graceMs = ENDING_GRACE_MS): void {
  if (socket.destroyed) return
  socket.setTimeout(graceMs)
  if (!socket.listeners('timeout').includes(destroyOnTimeout)) socket.on('timeout', destroyOnTimeout)
  socket.destroySoon()
}

/** Whether `socket` was taken from node:http: its taker ends it. */
export function isTaken (socket: Socket): boolean {
  return taken.has(socket)
}

/** node:http's listeners on the answer's socket and on the answer; undefined when any is missing, or there is no open socket. */
function serverListeners (response: ServerResponse): { socket: Socket & { parser: unknown }, onSocket: Array<[string, Listener]>, nextRequest: Listener } | undefined {
  const socket = response.socket as (Socket & { parser?: { incoming?: unknown } | null }) | null
  if (freeParser === undefined || socket === null || socket.destroyed || socket.parser == null) return undefined
  // The last request read on the connection must be this answer's: one sent behind it
  // (pipelined) is already being handled, and its answer waits for this one's socket.
  if (socket.parser.incoming !== response.req) return undefined
  const onSocket: Array<[string, Listener]> = []
  for (const [event, name] of SERVER_LISTENERS) {
    const listener = listenerNamed(socket, event, name)
    if (listener === undefined) return undefined
    onSocket.push([event, listener])
  }
  const nextRequest = listenerNamed(response, 'finish', NEXT_REQUEST_LISTENER)
  return nextRequest === undefined ? undefined : { socket: socket as Socket & { parser: unknown }, onSocket, nextRequest }
}

function ignore (): void {}

/** One function for every taken socket, not a closure each: Node calls it with the socket as `this`. */
function closeOnHalfClose (this: Socket): void {
  endSoon(this)
}

function destroyOnTimeout (this: Socket): void {
  this.destroy()
}
