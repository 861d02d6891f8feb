/**
 * The webhooks parts' receivers, on loopback in the bench's own process: one that answers
 * every delivery 200 at once and counts them, each id once (and how many came twice), so
 * a part can tell when the deliveries of a run have all arrived, and how long after its
 * change each arrived; and one that accepts connections and never answers.
 */
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'

export interface WebhookReceiver {
  readonly url: string
  /** Distinct deliveries received. */
  unique (): number
  /** Deliveries received more than once. */
  duplicates (): number
  /** For each delivery received the first time: ms from its change (the delivery's `createdAt`, the same clock) to its arrival. */
  delays (): number[]
  stop (): Promise<void>
}

export async function startWebhookReceiver (): Promise<WebhookReceiver> {
  const seen = new Set<string>()
  const delays: number[] = []
  let duplicates = 0
  const server = http.createServer((request, response) => {
    const arrived = Date.now()
    const id = request.headers['shoutbox-delivery']
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => { chunks.push(chunk) })
    request.on('end', () => {
      if (typeof id === 'string') {
        if (seen.has(id)) duplicates++
        else {
          seen.add(id)
          delays.push(arrived - (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: number }).createdAt)
        }
      }
      response.writeHead(200).end()
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    unique: () => seen.size,
    duplicates: () => duplicates,
    delays: () => [...delays],
    stop: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    }
  }
}

export interface SilentReceiver {
  readonly url: string
  /** Connections it accepted: the sender's tries. */
  connections (): number
  stop (): Promise<void>
}

/** A receiver that accepts every connection and never sends a byte back. */
export async function startSilentReceiver (): Promise<SilentReceiver> {
  const sockets = new Set<net.Socket>()
  let connections = 0
  const server = net.createServer(socket => {
    connections++
    sockets.add(socket)
    socket.resume() // reads what is sent (and so sees the sender close), answers nothing
    socket.on('error', () => {})
    socket.on('close', () => { sockets.delete(socket) })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    stop: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise(resolve => server.close(resolve))
    }
  }
}
