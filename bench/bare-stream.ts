/**
 * The stream parts' baseline: a bare node:http server that does what the host's stream
 * does and nothing more. A GET is a stream (its head, `retry`, a `ready` event); a POST
 * is a publish: answered at once, then in the next turn of the event loop its event is
 * written, as one chunk made once, straight to every stream's socket in one loop. The
 * same subscribers read it, so the host's delivery times can be read against the floor
 * that this machine's socket writes set.
 */
import http from 'node:http'

const port = Number(process.argv[2])
const HEAD = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' }
const streams = new Set<http.ServerResponse>()
let lastId = 0

/** What a widget's first load asks for, answered as the host would with an empty board: the readers' requests cost the bare server an answer too. */
const LATEST = Buffer.from('{"result":"ok","shouts":[],"pinned":[],"next":null,"limit":50}')

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url?.startsWith('/api/shoutbox/latest') === true) {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': LATEST.length })
    response.end(LATEST)
    return
  }
  if (request.method === 'GET') {
    response.writeHead(200, HEAD)
    response.write(`retry: 3000\n\nid: ${lastId}\nevent: ready\ndata: {}\n\n`)
    streams.add(response)
    response.on('close', () => streams.delete(response))
    return
  }
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (text: string) => { body += text })
  request.on('end', () => {
    const { message } = JSON.parse(body) as { message: string }
    const id = ++lastId
    const frame = Buffer.from(`id: ${id}\nevent: shout-created\ndata: ${JSON.stringify({ id, message, username: 'admin', date: Date.now() })}\n\n`)
    const chunk = Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`), frame, Buffer.from('\r\n')])
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    response.end('{"result":"ok"}')
    setImmediate(() => { for (const stream of streams) stream.socket?.write(chunk) })
  })
})
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'))
process.on('SIGTERM', () => {
  for (const stream of streams) stream.destroy()
  server.close(() => process.exit(0))
})
