/**
 * `npm run measure:attacks`: what two floods cost the production host, over real HTTP —
 * a burst of wrong passwords, then a burst of event-stream opens from one address:
 *
 *   node --import tsx scripts/measure-attacks.ts [--attempts 200] [--streams 1000] [--no-build] [--root DIR]
 *   DATABASE_URL=postgres://… node --import tsx scripts/measure-attacks.ts
 *
 * It builds (`npm run build`), starts `node dist/host/server.js` on a free port with a
 * fresh data directory (or, with DATABASE_URL, a schema of its own, dropped after),
 * finishes setup over HTTP, then sends `--attempts` wrong passwords for the admin at once
 * from 127.0.0.1 and, while they are in flight, the right password from 127.0.0.2.
 *
 * Hashes are counted from the host's own log: it runs with LOG_LEVEL=debug, and the
 * identity plugin logs one `password hash` line as each hash starts — nothing new is
 * exposed over HTTP. The count is checked against the answers (each 401, and the owner's
 * 200, is one hash; a 429 or 503 is none). Memory is the host's peak resident set
 * (VmHWM in /proc/<pid>/status), its peak reset just before the burst.
 *
 * Then `--streams` event streams are opened at once from 127.0.0.1 (each on its own
 * connection, held open); it reports how many the host accepted (200) and refused (429).
 *
 * `--root DIR` runs another checkout's build (e.g. an export of main, for a before/after).
 */
import { spawn, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { freePort } from '../test/helpers/server.js'

const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '200' },
    streams: { type: 'string', default: '1000' },
    'no-build': { type: 'boolean', default: false },
    root: { type: 'string' }
  },
  strict: true
})
const attempts = Number(values.attempts)
const streams = Number(values.streams)
const root = path.resolve(values.root ?? fileURLToPath(new URL('../', import.meta.url)))
const databaseUrl = process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL

const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery staple' }
const SETUP_TOKEN = randomBytes(16).toString('hex')
const ATTACKER = '127.0.0.1'
const OWNER = '127.0.0.2'

interface Answer {
  readonly status: number
  readonly body: string
  /** Milliseconds after the burst was sent. */
  readonly at: number
}

/** One request on a connection of its own, from `localAddress`. */
function request (port: number, method: string, urlPath: string, body: unknown, localAddress: string, started = 0): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method,
      path: urlPath,
      localAddress,
      agent: false,
      headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
    }, res => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() - started }))
      res.on('error', reject)
    })
    // A connection refused or dropped is an answer too (status 0): the burst's figures must include it.
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: error.code ?? error.message, at: performance.now() - started }))
    req.end(payload)
  })
}

async function memory (pid: number): Promise<{ rssMiB: number, peakMiB: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '') // '' once the host is gone
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 }
}

const mib = (n: number): string => `${Math.round(n)} MiB`

function timing (answers: readonly Answer[]): string {
  const times = answers.map(a => a.at).sort((a, b) => a - b)
  return `${Math.round(times[Math.floor(times.length / 2)]!)} / ${Math.round(times.at(-1)!)} ms`
}

if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })

const port = await freePort()
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-measure-attacks-'))
const schema = `measure_${randomBytes(5).toString('hex')}`
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  ADDONS_DIR: path.join(dataDir, 'addons'),
  LOG_LEVEL: 'debug',
  LOG_REQUESTS: '0',
  SETUP_TOKEN,
  ...(databaseUrl === undefined ? { DATABASE_URL: '' } : { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema })
}
delete env.NODE_OPTIONS
// The client address must be the peer's: no forwarded headers believed.
delete env.TRUST_PROXY

let log = ''
const host = spawn(process.execPath, [path.join(root, 'dist/host/server.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
host.stdout.setEncoding('utf8').on('data', (chunk: string) => { log += chunk })
host.stderr.setEncoding('utf8').on('data', (chunk: string) => { log += chunk })
const exited = new Promise<void>(resolve => host.once('exit', () => resolve()))
const hashesLogged = (): number => log.split('\n').filter(line => line.includes('"msg":"password hash"')).length

async function cleanUp (): Promise<void> {
  host.kill('SIGTERM')
  await exited
  await fs.rm(dataDir, { recursive: true, force: true })
  if (databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    await client.query(`drop schema if exists "${schema}" cascade`)
    await client.end()
  }
}

/** Opens `count` streams at once, each on its own connection, holds them until all have answered, then closes them. */
async function openStreams (port: number, count: number): Promise<{ accepted: number, refused: number, other: number }> {
  const held: http.ClientRequest[] = []
  const statuses = await Promise.all(Array.from({ length: count }, () => new Promise<number>(resolve => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/shoutbox/stream', localAddress: ATTACKER, agent: false }, res => {
      resolve(res.statusCode ?? 0)
      res.resume()
    })
    req.on('error', () => resolve(0))
    held.push(req)
    req.end()
  })))
  for (const req of held) req.destroy()
  return {
    accepted: statuses.filter(s => s === 200).length,
    refused: statuses.filter(s => s === 429).length,
    other: statuses.filter(s => s !== 200 && s !== 429).length
  }
}

try {
  for (let tries = 0; ; tries++) {
    const health = await request(port, 'GET', '/api/health', undefined, ATTACKER).catch(() => undefined)
    if (health?.status === 200) break
    if (tries > 600 || host.exitCode !== null) throw new Error(`the host did not start:\n${log}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const setup = await request(port, 'POST', '/api/setup/finish', { ...ADMIN, setupToken: SETUP_TOKEN }, ATTACKER)
  if (setup.status !== 200) throw new Error(`setup failed: ${setup.status} ${setup.body}`)

  const pid = host.pid!
  const hashesBefore = hashesLogged()
  const before = await memory(pid)
  // Resets VmHWM to the current resident size, so the peak read after is the burst's.
  await fs.writeFile(`/proc/${pid}/clear_refs`, '5')
  let polledPeak = before.rssMiB
  const poller = setInterval(() => {
    memory(pid).then(m => { polledPeak = Math.max(polledPeak, m.rssMiB) }, () => {})
  }, 5)

  const started = performance.now()
  const wrong = Array.from({ length: attempts }, () =>
    request(port, 'POST', '/api/auth/login', { username: ADMIN.username, password: 'not the password' }, ATTACKER, started))
  const owner = request(port, 'POST', '/api/auth/login', { username: ADMIN.username, password: ADMIN.password }, OWNER, started)
  const [answers, ownerAnswer] = await Promise.all([Promise.all(wrong), owner])
  clearInterval(poller)
  // The last debug lines may still be in the pipe.
  await new Promise(resolve => setTimeout(resolve, 200))
  const after = await memory(pid)

  const count = (status: number): number => answers.filter(a => a.status === status).length
  const others = answers.filter(a => ![401, 429, 503].includes(a.status))
  const hashes = hashesLogged() - hashesBefore
  const lastWrong = Math.max(...answers.map(a => a.at))
  const ownerUser = ownerAnswer.status === 200 ? (JSON.parse(ownerAnswer.body) as { user: { username: string } }).user.username : '-'
  const lines = [
    `Sign-in burst — ${databaseUrl === undefined ? 'embedded PostgreSQL (PGlite)' : 'PostgreSQL'}, ${os.availableParallelism()} cores, Node ${process.version}, ${path.relative(process.cwd(), root) || '.'}`,
    '',
    `${attempts} wrong passwords for "${ADMIN.username}" at once from ${ATTACKER}:`,
    `  401 INVALID_CREDENTIALS ${count(401)}, 429 TOO_MANY_REQUESTS ${count(429)}, 503 SERVICE_UNAVAILABLE ${count(503)}, other ${others.length}`,
    `  answered within (median / last): ${[401, 429, 503].filter(s => count(s) > 0).map(s => `${s} ${timing(answers.filter(a => a.status === s))}`).join(', ')}; all after ${Math.round(lastWrong)} ms`,
    `password hashes run during the burst (host's debug log): ${hashes === 0 ? 'none logged (a build without the debug line?)' : hashes}` +
      `; the answers imply ${count(401) + (ownerAnswer.status === 200 || ownerAnswer.status === 401 ? 1 : 0)} (one per 401, and the owner's)`,
    `the owner's right password from ${OWNER}, sent with the burst: ${ownerAnswer.status}${ownerAnswer.status === 200 ? ` (signed in as ${ownerUser})` : ` ${ownerAnswer.body}`}` +
      ` after ${Math.round(ownerAnswer.at)} ms`,
    `host resident memory: ${mib(before.rssMiB)} before, peak ${mib(Math.max(after.peakMiB, polledPeak))} during the burst (VmHWM), ${mib(after.rssMiB)} after`
  ]
  process.stdout.write(lines.join('\n') + '\n')
  if (others.length > 0) process.stdout.write(`other answers: ${[...new Set(others.map(a => `${a.status} ${a.body}`))].slice(0, 5).join('; ')}\n`)
  const opened = await openStreams(port, streams)
  process.stdout.write(`${streams} event streams opened at once from ${ATTACKER}: ${opened.accepted} accepted (200), ${opened.refused} refused (429), ${opened.other} other\n`)
  if (host.exitCode !== null || host.signalCode !== null) process.stdout.write(`the host exited (${host.exitCode ?? host.signalCode}); its last words:\n${log.split('\n').slice(-5).join('\n')}\n`)
} finally {
  await cleanUp()
}
