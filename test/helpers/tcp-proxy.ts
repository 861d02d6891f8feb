import net from 'node:net'

/**
 * A TCP proxy that a test can cut and restore (to stage a database outage), or hold (new
 * connections wait, the open ones go on) and then let through to another address (to
 * stage a host that restarts on the same address, with no refused connection between).
 */
export class TcpProxy {
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()
  /** While held, the connections that came meanwhile, paused. */
  private waiting: net.Socket[] | undefined

  constructor (private target: { host: string, port: number }, readonly port: number) {}

  async start (): Promise<void> {
    this.server = net.createServer(client => {
      this.track(client)
      if (this.waiting === undefined) this.connect(client)
      else {
        client.pause()
        this.waiting.push(client)
      }
    })
    await new Promise<void>(resolve => this.server!.listen(this.port, '127.0.0.1', resolve))
  }

  private track (socket: net.Socket): void {
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => {})
  }

  private connect (client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host)
    this.track(upstream)
    client.pipe(upstream).pipe(client)
    client.resume()
  }

  /** New connections wait until `release`; the open ones go on. */
  hold (): void {
    this.waiting ??= []
  }

  /** Connects the waiting connections, and every new one, to `target` (by default the same). */
  release (target = this.target): void {
    this.target = target
    const waiting = this.waiting ?? []
    this.waiting = undefined
    for (const client of waiting) if (!client.destroyed) this.connect(client)
  }

  /** Refuses new connections and drops every open one, mid-query if need be. */
  async cut (): Promise<void> {
    const server = this.server
    this.server = undefined
    for (const socket of this.sockets) socket.destroy()
    for (const client of this.waiting ?? []) client.destroy()
    await new Promise<void>(resolve => server === undefined ? resolve() : server.close(() => resolve()))
  }
}
