import net from 'node:net'

/** A TCP proxy to PostgreSQL that a test can cut and restore, to stage a database outage. */
export class TcpProxy {
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()

  constructor (private readonly target: { host: string, port: number }, readonly port: number) {}

  async start (): Promise<void> {
    this.server = net.createServer(client => {
      const upstream = net.connect(this.target.port, this.target.host)
      for (const socket of [client, upstream]) {
        this.sockets.add(socket)
        socket.on('close', () => this.sockets.delete(socket))
        socket.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>(resolve => this.server!.listen(this.port, '127.0.0.1', resolve))
  }

  /** Refuses new connections and drops every open one, mid-query if need be. */
  async cut (): Promise<void> {
    const server = this.server
    this.server = undefined
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>(resolve => server === undefined ? resolve() : server.close(() => resolve()))
  }
}
