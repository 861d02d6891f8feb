import type { ServerResponse } from 'node:http'
import type { EventStream } from '../../sdk/index.js'
import { EVERY_ANSWER } from './headers.js'

const HEARTBEAT_MS = 15_000
/** A client this far behind is cut off rather than buffered without end. */
const MAX_BUFFERED_BYTES = 1 << 20

const HEAD = {
  ...EVERY_ANSWER,
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx would otherwise hold events back in its buffer.
  'x-accel-buffering': 'no',
  connection: 'keep-alive'
}

/**
 * Every open event stream of this process: the host writes their head, keeps idle
 * connections (and proxies) from timing out with a comment every 15 s, cuts off clients
 * that stop reading, and ends them all when the host stops.
 */
export class EventStreams {
  private readonly open = new Set<OpenStream>()
  private readonly heartbeat: NodeJS.Timeout

  constructor () {
    this.heartbeat = setInterval(() => { for (const stream of this.open) stream.write(': ping\n\n') }, HEARTBEAT_MS).unref()
  }

  get size (): number {
    return this.open.size
  }

  /** Takes over `response` as an event stream. */
  start (response: ServerResponse): EventStream {
    response.writeHead(200, HEAD)
    // Browsers reconnect after 3 s, sending Last-Event-ID.
    response.write('retry: 3000\n\n')
    const stream = new OpenStream(response, () => this.open.delete(stream))
    this.open.add(stream)
    return stream
  }

  endAll (): void {
    clearInterval(this.heartbeat)
    for (const stream of this.open) stream.end()
    this.open.clear()
  }
}

class OpenStream implements EventStream {
  constructor (private readonly response: ServerResponse, forget: () => void) {
    response.on('close', forget)
  }

  get closed (): boolean {
    return this.response.writableEnded || this.response.destroyed
  }

  write (frame: string): void {
    if (this.closed) return
    if (this.response.writableLength > MAX_BUFFERED_BYTES) {
      this.response.destroy()
      return
    }
    this.response.write(frame)
  }

  end (): void {
    if (!this.closed) this.response.end()
  }

  onClose (listener: () => void): void {
    this.response.on('close', listener)
  }
}
