/**
 * The stream parts' baseline: a bare node:http server that does what the host's stream
 * does and nothing more. A GET is a stream (its head, `retry`, a `ready` event); a POST
 * is a publish: answered at once, then in the next turn of the event loop its event is
 * written, as one chunk made once (joined with any other event due in that turn),
 * straight to every stream's socket in one loop. The
 * same subscribers read it, so the host's delivery times can be read against the floor
 * that this machine's socket writes set.
 *
 * A PUT or DELETE of `/api/shoutbox/shouts/:id/reactions/:emoji` is a reaction, kept in
 * memory and answered with the shout's counts; the counts go to every stream as a
 * `shout-reactions` event under the host's rule (at most once a second per shout: the
 * first at once, later ones when the shout's second is up). That is the least any server
 * keeping the once-a-second rule does for the reactions part's load.
 */
import http from 'node:http'

const port = Number(process.argv[2])
const HEAD = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' }
const JSON_HEAD = { 'content-type': 'application/json; charset=utf-8' }
const streams = new Set<http.ServerResponse>()
let lastId = 0

/** What a widget's first load asks for, answered as the host would with an empty board: the readers' requests cost the bare server an answer too. */
const LATEST = Buffer.from('{"result":"ok","shouts":[],"pinned":[],"next":null,"limit":50}')
const REACTION = /^\/api\/shoutbox\/shouts\/(\d+)\/reactions\/([^/?]+)$/

/** Chunks due to go to every stream in the next turn: what became due in one turn goes out as one write. */
let due: Buffer[] = []

/**
 * One SSE event as a chunk of the chunked body, written to every stream in the next turn
 * of the event loop, together with any others that became due in this one (as the
 * host's fan-out joins the events a stream lacks): a loaded server writes each socket
 * once a turn, not once an event.
 */
function fanOut (event: string, data: unknown): void {
  const frame = Buffer.from(`id: ${++lastId}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  due.push(Buffer.from(`${frame.length.toString(16)}\r\n`), frame, Buffer.from('\r\n'))
  if (due.length > 3) return
  setImmediate(() => {
    const chunk = Buffer.concat(due)
    due = []
    for (const stream of streams) stream.socket?.write(chunk)
  })
}

/** Per shout: who reacted with what, when its counts last went out, and whether a later send is due. */
const reactions = new Map<number, { readonly by: Map<string, Set<string>>, lastSent: number, due: boolean }>()

function counts (id: number): Array<{ emoji: string, count: number }> {
  return [...reactions.get(id)!.by].filter(([, who]) => who.size > 0).map(([emoji, who]) => ({ emoji, count: who.size }))
}

function announce (id: number): void {
  const shout = reactions.get(id)!
  shout.lastSent = Date.now()
  shout.due = false
  fanOut('shout-reactions', { id, room: 'main', reactions: counts(id) })
}

function react (id: number, emoji: string, who: string, on: boolean): void {
  let shout = reactions.get(id)
  if (shout === undefined) reactions.set(id, shout = { by: new Map(), lastSent: 0, due: false })
  let reactors = shout.by.get(emoji)
  if (reactors === undefined) shout.by.set(emoji, reactors = new Set())
  if (on) reactors.add(who)
  else reactors.delete(who)
  if (shout.due) return
  const wait = shout.lastSent + 1000 - Date.now()
  if (wait <= 0) announce(id)
  else {
    shout.due = true
    setTimeout(() => { announce(id) }, wait)
  }
}

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url?.startsWith('/api/shoutbox/latest') === true) {
    response.writeHead(200, { ...JSON_HEAD, 'content-length': LATEST.length })
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
    const reaction = REACTION.exec(request.url ?? '')
    if (reaction !== null) {
      const id = Number(reaction[1])
      react(id, decodeURIComponent(reaction[2]!), request.headers.cookie ?? '', request.method === 'PUT')
      response.writeHead(200, JSON_HEAD)
      response.end(JSON.stringify({ result: 'ok', reactions: counts(id) }))
      return
    }
    const { message } = JSON.parse(body) as { message: string }
    response.writeHead(200, JSON_HEAD)
    response.end('{"result":"ok"}')
    fanOut('shout-created', { id: lastId + 1, message, username: 'admin', date: Date.now() })
  })
})
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'))
process.on('SIGTERM', () => {
  for (const stream of streams) stream.destroy()
  server.close(() => process.exit(0))
})
