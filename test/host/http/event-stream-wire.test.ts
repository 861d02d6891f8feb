/**
 * The stream's bytes on the wire. Frames are written to the socket straight, as chunks
 * made once for every stream (src/host/http/event-streams.ts), so these read the raw
 * socket rather than trust an HTTP client to forgive a malformed chunk.
 */
import http from 'node:http'
import net from 'node:net'
import t from 'tap'
import { EventFrame } from '../../../src/sdk/index.js'
import { EventStreams } from '../../../src/host/http/event-streams.js'
import { endSoon, isTaken } from '../../../src/host/http/take-socket.js'
import { eventually } from '../../helpers/eventually.js'
import { build, setUp, type App } from '../../helpers/app.js'
import type { Tap } from '../../helpers/types.js'

interface Raw {
  /** Everything read so far, as latin1 (one character a byte). */
  readonly text: () => string
  until (what: string | RegExp, label: string): Promise<string>
  readonly socket: net.Socket
}

/** A raw connection to `port` that sends `request` and collects what comes back. */
function raw (t: Tap, port: number, request: string): Raw {
  const socket = net.connect(port, '127.0.0.1', () => socket.write(request))
  let text = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => { text += chunk })
  t.teardown(() => { socket.destroy() })
  return {
    socket,
    text: () => text,
    // A bounded retry: waits up to 5 s for the text, checking every 10 ms.
    async until (what, label) {
      for (let waited = 0; typeof what === 'string' ? !text.includes(what) : !what.test(text); waited += 10) {
        if (waited > 5000) throw new Error(`timed out waiting for ${label}; read: ${JSON.stringify(text)}`)
        await new Promise(resolve => setTimeout(resolve, 10)) // between the tries
      }
      return text
    }
  }
}

/** A chunked body decoded strictly: each chunk's size line must match its bytes, each chunk end in CRLF. */
function dechunk (body: string): { frames: string, complete: boolean } {
  let frames = ''
  let at = 0
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at)
    if (lineEnd === -1) return { frames, complete: false }
    const size = body.slice(at, lineEnd)
    if (!/^[0-9a-f]+$/.test(size)) throw new Error(`not a chunk size: ${JSON.stringify(size)} at byte ${at}`)
    const length = parseInt(size, 16)
    const start = lineEnd + 2
    if (body.length < start + length + 2) return { frames, complete: false }
    if (body.slice(start + length, start + length + 2) !== '\r\n') throw new Error(`chunk at byte ${at} does not end after its ${length} bytes`)
    if (length === 0) return { frames, complete: true }
    frames += body.slice(start, start + length)
    at = start + length + 2
  }
}

async function board (t: Tap): Promise<{ app: App, port: number, publish: (message: string) => Promise<void> }> {
  const app = await build(t)
  const cookie = await setUp(app)
  const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }))
  const publish = async (message: string): Promise<void> => {
    const response = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
    if (response.statusCode !== 200) throw new Error(`publishing ${message}: ${response.body}`)
  }
  return { app, port: Number(url.port), publish }
}

const GET_STREAM = 'GET /api/shoutbox/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n'

t.test('HTTP/1.1: a chunked body whose every chunk is well formed, with events in order; stopping ends it with the last chunk', async t => {
  const { app, port, publish } = await board(t)
  const stream = raw(t, port, GET_STREAM)
  await stream.until('event: ready', 'the ready event')
  // Two characters of two and three bytes: a chunk's size counts bytes, not characters.
  for (const message of ['first', 'ça va — ünïcödé 🎉', 'third']) await publish(message)
  await stream.until('third', 'the third shout')

  const text = stream.text()
  const headEnd = text.indexOf('\r\n\r\n')
  t.match(text.slice(0, headEnd), /^HTTP\/1\.1 200 OK\r\n/)
  t.match(text.slice(0, headEnd), /\r\ntransfer-encoding: chunked(\r\n|$)/i)
  // Its socket is the stream's (taken from node:http): the connection ends with it, and no client waits to reuse it.
  t.match(text.slice(0, headEnd), /\r\nconnection: close(\r\n|$)/i)
  const { frames, complete } = dechunk(text.slice(headEnd + 4))
  t.notOk(complete, 'the body has not ended')
  const decoded = Buffer.from(frames, 'latin1').toString('utf8')
  t.ok(decoded.startsWith('retry: 3000\n\n'), 'the retry line first')
  const messages = [...decoded.matchAll(/"message":"([^"]*)"/g)].map(match => match[1])
  t.same(messages, ['first', 'ça va — ünïcödé 🎉', 'third'], 'every event whole, in order, its UTF-8 intact')
  t.equal([...decoded.matchAll(/\n\n/g)].length, 5, 'retry, ready and three events: five frames, nothing else')

  const closed = new Promise(resolve => stream.socket.once('close', resolve))
  await app.close()
  await stream.until(/0\r\n\r\n$/, 'the last chunk')
  t.ok(dechunk(stream.text().slice(headEnd + 4)).complete, 'the body ends with the zero-length chunk')
  await closed
  t.pass('and the connection closes')
})

t.test('HTTP/1.0: no chunked encoding, the frames as they are, and the connection closes when the host stops', async t => {
  const { app, port, publish } = await board(t)
  const stream = raw(t, port, 'GET /api/shoutbox/stream HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n')
  await stream.until('event: ready', 'the ready event')
  await publish('for an old client')
  await stream.until('for an old client', 'the shout')
  const text = stream.text()
  const headEnd = text.indexOf('\r\n\r\n')
  t.notMatch(text.slice(0, headEnd), /transfer-encoding/i)
  const body = text.slice(headEnd + 4)
  t.match(body, /^retry: 3000\n\nid: \d+\nevent: ready\ndata: \{\}\n\nid: \d+\nevent: shout-created\ndata: \{[^\n]*"message":"for an old client"[^\n]*\}\n\n$/, 'frames only, no chunk sizes')
  const closed = new Promise(resolve => stream.socket.once('close', resolve))
  await app.close()
  await closed
  t.pass('closed')
})

t.test('an open stream holds its socket, not an HTTP exchange: node:http lets go of it, what the reader sends is dropped, and its half-close or reset ends the stream', async t => {
  const { app, port, publish } = await board(t)
  const serverSide: net.Socket[] = []
  app.server.on('connection', (socket: net.Socket) => serverSide.push(socket))
  const first = raw(t, port, GET_STREAM)
  await first.until('event: ready', 'the ready event')
  const socket = serverSide[0]!
  // On every Node version CI runs: if Node's listeners moved, the stream would still work, untaken.
  t.ok(isTaken(socket), 'the socket was taken from node:http')
  t.equal((socket as net.Socket & { parser: unknown }).parser, null, 'its parser went back to Node')
  t.equal((socket as net.Socket & { _httpMessage: unknown })._httpMessage, null, 'no answer holds it')
  t.equal(app.eventStreams.size, 1)

  // A request sent behind the stream is read and dropped: nothing answers it, the stream goes on.
  first.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n')
  await publish('after the bytes')
  await first.until('after the bytes', 'the shout after the bytes')
  t.equal(first.text().match(/HTTP\/1\.1 /g)?.length, 1, 'one answer on the connection: the stream')

  // The reader half-closes: the host closes its side and forgets the stream.
  const closed = new Promise(resolve => first.socket.once('close', resolve))
  first.socket.end()
  await closed
  await eventually(() => app.eventStreams.size, size => size === 0)
  t.ok(socket.destroyed, 'the server side is closed')

  // The reader resets: the same.
  const second = raw(t, port, GET_STREAM)
  await second.until('event: ready', 'the second ready event')
  t.equal(app.eventStreams.size, 1)
  second.socket.resetAndDestroy()
  await eventually(() => app.eventStreams.size, size => size === 0)
  t.ok(serverSide[1]!.destroyed, 'the second server side is closed')
  await publish('to nobody')
  t.pass('a publish to no reader writes nowhere')
})

t.test('a request sent behind the stream in the same packet (pipelined) is already being handled: the socket stays Node\'s, the stream works all the same', async t => {
  const { app, port, publish } = await board(t)
  const serverSide: net.Socket[] = []
  app.server.on('connection', (socket: net.Socket) => serverSide.push(socket))
  const stream = raw(t, port, `${GET_STREAM}GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n`)
  await stream.until('event: ready', 'the ready event')
  t.notOk(isTaken(serverSide[0]!), 'not taken: the answer behind it waits for this socket')
  t.notMatch(stream.text(), /connection: close/i, 'and its head does not say the connection ends')
  await publish('pipelined')
  await stream.until('pipelined', 'the shout')
  await app.close()
  await stream.until(/0\r\n\r\n[\s\S]*HTTP\/1\.1 (200|503)/, 'the answer queued behind the stream, once it ended')
  t.pass('the request behind it is answered once the stream ends')
})

t.test('a taken socket told to end is destroyed once its grace is over, should its peer read nothing more', async t => {
  const server = net.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const accepted = new Promise<net.Socket>(resolve => server.once('connection', resolve))
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1')
  t.teardown(() => { client.destroy() })
  client.pause()
  const socket = await accepted
  // Far more than the kernel's buffers hold: the end cannot be sent while the peer reads nothing.
  const megabyte = Buffer.alloc(1 << 20)
  for (let i = 0; i < 64; i++) socket.write(megabyte)
  const closed = new Promise(resolve => socket.once('close', resolve))
  endSoon(socket, 200)
  await closed
  t.ok(socket.destroyed, 'destroyed, not held for good')
})

t.test('HEAD: the head alone, the answer ended, and nothing of later events on the connection', async t => {
  const { port, publish } = await board(t)
  const connection = raw(t, port, 'HEAD /api/shoutbox/stream HTTP/1.1\r\nHost: x\r\n\r\n')
  await connection.until('\r\n\r\n', 'the head')
  t.match(connection.text(), /^HTTP\/1\.1 200 OK\r\n/)
  t.match(connection.text(), /\r\ncontent-type: text\/event-stream; charset=utf-8\r\n/i)
  await publish('not for a HEAD')
  // The same connection answers a next request: the HEAD answer is over.
  connection.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n')
  await connection.until(/\r\n\r\n[\s\S]*HTTP\/1\.1 200 OK/, 'the next answer')
  t.notMatch(connection.text(), /event:|retry:|not for a HEAD/, 'no stream bytes anywhere')
  t.equal(connection.text().indexOf('HTTP/1.1 200 OK'), 0, 'the head came first')
})

/**
 * A stream of EventStreams outside any app, on a real socket, as Node makes an answer
 * for a pipelined request: the answer exists before it holds the socket
 * (`assign` gives it the socket).
 */
async function bareStream (t: Tap) {
  const server = net.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const accepted = new Promise<net.Socket>(resolve => server.once('connection', resolve))
  const client = raw(t, (server.address() as net.AddressInfo).port, '')
  const socket = await accepted
  t.teardown(() => { socket.destroy() })
  const request = new http.IncomingMessage(socket)
  request.method = 'GET'
  request.httpVersionMajor = 1
  request.httpVersionMinor = 1
  request.httpVersion = '1.1'
  const response = new http.ServerResponse(request)
  const streams = new EventStreams()
  t.teardown(() => { streams.endAll() })
  const stream = streams.start('127.0.0.1', () => response)
  /** The body so far, its chunks decoded strictly. */
  const body = (): string => {
    const text = client.text()
    return dechunk(text.slice(text.indexOf('\r\n\r\n') + 4)).frames
  }
  return { stream, response, client, body, assign: () => { response.assignSocket(socket) } }
}

t.test('an answer queued behind another on its connection (pipelining): held by Node, then every frame in order, well formed', async t => {
  const { stream, response, client, body, assign } = await bareStream(t)
  t.equal(response.socket, null, 'no socket yet')
  stream.write(new EventFrame('id: 1\nevent: one\ndata: {}\n\n'))
  assign()
  stream.write(new EventFrame('id: 2\nevent: two\ndata: {}\n\n'))
  await client.until('event: two', 'the second frame')
  t.match(client.text(), /^HTTP\/1\.1 200 OK\r\n/)
  t.equal(body(), 'retry: 3000\n\nid: 1\nevent: one\ndata: {}\n\nid: 2\nevent: two\ndata: {}\n\n',
    'retry, the frame Node held, then the one written straight: in order, each chunk well formed')
})

t.test('an empty frame writes nothing (an empty chunk would be the last one)', async t => {
  const { stream, client, body, assign } = await bareStream(t)
  assign()
  stream.write(new EventFrame(''))
  stream.write(new EventFrame('id: 3\nevent: after\ndata: {}\n\n'))
  await client.until('event: after', 'the frame after it')
  t.equal(body(), 'retry: 3000\n\nid: 3\nevent: after\ndata: {}\n\n')
  t.notMatch(client.text(), /\r\n0\r\n\r\n/, 'no last chunk')
})
