/**
 * The presence part's churn, in a process of its own (on the load generator's core):
 * `job.perSecond` readers a second join — each opens a stream of one room (the rooms in
 * turn), from a loopback address of its own group (127.0.200.1, …) — and each leaves
 * (closes it) `job.holdMs` after its `ready` event. Once the first has joined it prints
 * `started`; on "stop" it stops opening, closes the streams still open, and prints its
 * figures (see ChurnResult) as one line.
 */
import net from 'node:net'

interface Job {
  /** The host's stream, e.g. http://127.0.0.1:3000/api/shoutbox/stream */
  readonly url: string
  readonly rooms: readonly string[]
  readonly perSecond: number
  readonly holdMs: number
  /** A bound of its own, should the bench fail to stop it. */
  readonly maxSeconds: number
}

export interface ChurnResult {
  /** Streams opened (their `ready` heard), closed by this process, and those that failed. */
  readonly joined: number
  readonly left: number
  readonly failed: number
  /** Joins a second achieved, from the first to the stop. */
  readonly joinsPerSecond: number
  /** The most streams open at once. */
  readonly mostOpen: number
  /** This process's CPU (user + system) over the run, % of a core. */
  readonly cpuPercent: number
}

const job = JSON.parse(process.argv[2]!) as Job
const target = new URL(job.url)
let joined = 0
let left = 0
let failed = 0
let open = 0
let mostOpen = 0
let started = false
let sent = 0
const sockets = new Set<net.Socket>()

/** The n-th joiner's address: 20 a loopback address, from 127.0.200.1 (the subscribers use 127.0.1.1 and on). */
const addressOf = (n: number): string => {
  const group = Math.floor(n / 20)
  return `127.200.${Math.floor(group / 254) % 254}.${1 + group % 254}`
}

function join (n: number): void {
  const room = job.rooms[n % job.rooms.length]!
  let text = ''
  let ready = false
  const socket = net.connect({ host: target.hostname, port: Number(target.port), localAddress: addressOf(n) }, () => {
    socket.write(`GET ${target.pathname}?rooms=${encodeURIComponent(room)} HTTP/1.1\r\nhost: ${target.host}\r\naccept: text/event-stream\r\n\r\n`)
  })
  sockets.add(socket)
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => {
    if (ready) return
    text += chunk
    if (!text.includes('event: ready')) return
    if (!text.startsWith('HTTP/1.1 200')) { socket.destroy(); return }
    ready = true
    joined++
    open++
    mostOpen = Math.max(mostOpen, open)
    if (!started) {
      started = true
      process.stdout.write('started\n')
    }
    setTimeout(() => {
      left++
      socket.destroy()
    }, job.holdMs)
  })
  socket.on('error', () => { if (!ready) failed++ })
  socket.on('close', () => {
    sockets.delete(socket)
    if (ready) open--
    else if (!text.includes('event: ready')) failed++
  })
}

const cpu = (): number => { const { user, system } = process.cpuUsage(); return (user + system) / 1000 }
const first = Date.now()
const cpuFirst = cpu()
// As many as are due by now, evenly spaced: timers run late on a busy machine.
const joining = setInterval(() => {
  const due = Math.floor((Date.now() - first) * job.perSecond / 1000)
  for (; sent < due; sent++) join(sent)
}, 5)
const bound = setTimeout(() => { stop() }, job.maxSeconds * 1000)

function stop (): void {
  clearInterval(joining)
  clearTimeout(bound)
  const seconds = (Date.now() - first) / 1000
  const result: ChurnResult = {
    joined, left, failed, joinsPerSecond: joined / seconds, mostOpen, cpuPercent: 100 * (cpu() - cpuFirst) / (seconds * 1000)
  }
  for (const socket of sockets) socket.destroy()
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0))
}

process.stdin.setEncoding('utf8')
process.stdin.on('data', (text: string) => { if (text.includes('stop')) stop() })
