/**
 * The webhooks part's receiver: a node:http server on loopback in the bench's own process
 * that answers every delivery 200 at once and counts them, each id once (and how many
 * came twice), so the part can tell when the deliveries of a run have all arrived.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface WebhookReceiver {
  readonly url: string
  /** Distinct deliveries received. */
  unique (): number
  /** Deliveries received more than once. */
  duplicates (): number
  stop (): Promise<void>
}

export async function startWebhookReceiver (): Promise<WebhookReceiver> {
  const seen = new Set<string>()
  let duplicates = 0
  const server = http.createServer((request, response) => {
    const id = request.headers['shoutbox-delivery']
    request.resume()
    request.on('end', () => {
      if (typeof id === 'string') {
        if (seen.has(id)) duplicates++
        else seen.add(id)
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
    stop: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    }
  }
}
