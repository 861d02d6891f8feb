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
 * logger: about 12 KiB a reader. Taken, a reader costs its socket, about 6 KiB
 * (docs/performance.md, "Memory per stream reader").
 *
 * Node has no public call for it. This does what its upgrade path does
 * (lib/_http_server.js, `onParserExecuteCommon`): the server's listeners come off the
 * socket, the parser goes back to Node's pool (`freeParser`, which `_http_common`
 * exports) and the answer lets go of the socket. Each listener is found by the name
 * Node gives it (the same in Node 20 and 24); if one is missing, nothing is taken and
 * the answer stays Node's, so a stream works on any Node, at the old cost.
 * `test/host/http/event-stream-wire.test.ts` runs on each Node version CI runs and
 * fails if the socket is not taken.
 *
 * The exchange is over as HTTP: the answer emits `finish` and `close` (Node's own
 * `finish` listener removed first: it would keep the connection for a next request),
 * so Fastify logs and counts the request, and the server's drain forgets the answer.
 */

const require = createRequire(import.meta.url)
const { freeParser } = require('_http_common') as { freeParser: (parser: unknown, request: unknown, socket: unknown) => void }

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
 * Takes `response`'s socket from node:http, or returns null and changes nothing when it
 * cannot: no socket yet (an answer queued behind another on its connection) or one
 * already closed, bytes Node still holds for it, or listeners not where they are expected. The head must
 * have been written.
 */
export function takeSocket (response: ServerResponse): Socket | null {
  const socket = response.socket as (Socket & { parser?: unknown }) | null
  if (socket === null || socket.destroyed || !response.headersSent || (response as unknown as { outputData: unknown[] }).outputData.length > 0) return null
  const found = SERVER_LISTENERS.map(([event, name]) => [event, listenerNamed(socket, event, name)] as const)
  const nextRequest = listenerNamed(response, 'finish', NEXT_REQUEST_LISTENER)
  if (found.some(([, listener]) => listener === undefined) || nextRequest === undefined || socket.parser == null) return null

  for (const [event, listener] of found) socket.removeListener(event, listener!)
  freeParser(socket.parser, response.req, socket)
  response.removeListener('finish', nextRequest)
  response.detachSocket(socket)
  taken.add(socket)

  // What the server's listeners did, the taker's way: the reader's close is read (what
  // it sends is dropped), a half-close or a silence past the socket's timeout closes it.
  socket.on('data', ignore)
  socket.on('error', ignore)
  socket.on('end', () => socket.destroySoon())
  socket.on('timeout', () => socket.destroy())
  socket.resume()

  response.emit('finish')
  response.emit('close')
  return socket
}

/** Whether `socket` was taken from node:http: its taker ends it. */
export function isTaken (socket: Socket): boolean {
  return taken.has(socket)
}

function ignore (): void {}
