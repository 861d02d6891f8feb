/**
 * What one socket write costs on this machine, the floor under the stream fan-out:
 *
 *   taskset -c 0 node --import tsx bench/socket-write-cost.ts [sockets] [rounds]
 *
 * This process accepts `sockets` loopback connections from a child process (on core 1,
 * so run this one on core 0) that reads and discards, then writes one stream
 * event to every socket, `rounds` times, and prints the CPU time per write (user and
 * system, from process.cpuUsage) and the wall time per write: first as the host writes
 * a frame (one ready buffer), then as Node's ServerResponse writes a chunk (size line,
 * data and CRLF, corked).
 */
import { spawn } from 'node:child_process'
import net from 'node:net'

const SOCKETS = Number(process.argv[2] ?? 2000)
const ROUNDS = Number(process.argv[3] ?? 10)

if (process.argv[2] === 'client') {
  const [port, count] = [Number(process.argv[3]), Number(process.argv[4])]
  let connected = 0
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1', () => { if (++connected === count) process.stdout.write('connected\n') })
    socket.on('data', () => {})
  }
} else {
  const sockets: net.Socket[] = []
  const server = net.createServer(socket => {
    socket.setNoDelay(true)
    sockets.push(socket)
  })
  server.listen(0, '127.0.0.1', () => { void measure((server.address() as net.AddressInfo).port) })

  const measure = async (port: number): Promise<void> => {
    const client = spawn('taskset', ['-c', '1', process.execPath, '--import', 'tsx', process.argv[1]!, 'client', String(port), String(SOCKETS)], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise(resolve => client.stdout.once('data', resolve))
    await new Promise(resolve => setTimeout(resolve, 500))
    const frame = Buffer.from('id: 1\nevent: shout-created\ndata: {"id":1,"message":"Hello there","username":"ada","date":1795000000000}\n\n')
    const chunk = Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`), frame, Buffer.from('\r\n')])
    const sizeLine = `${frame.length.toString(16)}\r\n`
    const ways: Array<[string, (socket: net.Socket) => void]> = [
      ['one buffer (the host)', socket => { socket.write(chunk) }],
      ['size line, data, CRLF, corked (ServerResponse)', socket => {
        socket.cork()
        socket.write(sizeLine)
        socket.write(frame)
        socket.write('\r\n')
        process.nextTick(() => socket.uncork())
      }]
    ]
    // Each way twice, alternating, so that neither is measured only cold.
    for (const [label, write] of [...ways, ...ways]) {
      const cpu = process.cpuUsage()
      const started = performance.now()
      for (let round = 0; round < ROUNDS; round++) {
        for (const socket of sockets) write(socket)
        await new Promise(resolve => setImmediate(resolve))
      }
      const used = process.cpuUsage(cpu)
      const writes = SOCKETS * ROUNDS
      process.stdout.write(`${label}: ${(used.user / writes).toFixed(1)} µs user + ${(used.system / writes).toFixed(1)} µs system CPU, ` +
        `${((performance.now() - started) * 1000 / writes).toFixed(1)} µs wall, per write (${SOCKETS} sockets × ${ROUNDS})\n`)
      await new Promise(resolve => setTimeout(resolve, 300))
    }
    client.kill()
    server.close()
    for (const socket of sockets) socket.destroy()
  }
}
