/**
 * `npm run bench`: the production start measured against baselines run side by side.
 *
 *   npm run bench                          # on the embedded database
 *   DATABASE_URL=postgres://… npm run bench # on PostgreSQL (a schema of its own, dropped after)
 *   npm run bench -- --rounds 5 --seconds 10 --subscribers 2000
 *
 * Every figure comes from real HTTP over loopback, with the load generator (autocannon)
 * in its own process. The list is compared with a bare node:http server sending the
 * identical bytes; the two are measured alternately, several rounds, and the medians kept.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

const root = fileURLToPath(new URL('../', import.meta.url))
const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    subscribers: { type: 'string', default: '2000' },
    'skip-million': { type: 'boolean', default: false },
    'list-only': { type: 'boolean', default: false }
  }
})
const ROUNDS = Number(options.rounds)
const SECONDS = Number(options.seconds)
const SUBSCRIBERS = Number(options.subscribers)
const DATABASE_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'benchmark password' }

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}
const log = (line: string): void => { process.stderr.write(`# ${line}\n`) }

async function freePort (): Promise<number> {
  return new Promise(resolve => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

function node (args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] })
}

function firstLine (child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    child.stdout!.setEncoding('utf8')
    const onData = (chunk: string): void => {
      text += chunk
      const end = text.indexOf('\n')
      if (end !== -1) {
        child.stdout!.off('data', onData)
        resolve(text.slice(0, end))
      }
    }
    child.stdout!.on('data', onData)
    child.once('exit', code => reject(new Error(`exited with ${code} before answering`)))
  })
}

// ---------------------------------------------------------------- storage and host

const schema = `bench_${randomBytes(4).toString('hex')}`
const dataDir = DATABASE_URL === undefined ? await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-bench-')) : undefined
const storageEnv: NodeJS.ProcessEnv = DATABASE_URL === undefined
  ? { DATA_DIR: dataDir, DATABASE_URL: '' }
  : { DATABASE_URL, DATABASE_SCHEMA: schema }

class Host {
  child: ChildProcess | undefined
  readonly port: Promise<number> = freePort()

  async start (): Promise<void> {
    const port = await this.port
    this.child = node(['dist/host/server.js', '--port', String(port), '--host', '127.0.0.1'], { ...storageEnv, LOG_LEVEL: 'warn' })
    this.child.stdout!.resume()
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${await this.url()}/api/health`)).ok) return
      } catch {
        // not yet listening
      }
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    throw new Error('the host did not start')
  }

  async stop (): Promise<void> {
    const child = this.child
    if (child === undefined || child.exitCode !== null) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }

  async url (): Promise<string> {
    return `http://127.0.0.1:${await this.port}`
  }

  /** Resident memory of the host process, in MiB. */
  async rssMiB (): Promise<number> {
    const status = await fs.readFile(`/proc/${this.child!.pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024
  }
}

const host = new Host()

async function api (method: string, url: string, body?: unknown, cookie?: string): Promise<{ status: number, json: Record<string, unknown>, headers: Headers }> {
  const response = await fetch(`${await host.url()}${url}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie === undefined ? {} : { cookie }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? {} : JSON.parse(text) as Record<string, unknown>, headers: response.headers }
}

/** Runs SQL on the database, directly (the embedded one only while the host is stopped). */
async function sql<T = Record<string, unknown>> (query: string): Promise<T[]> {
  if (DATABASE_URL !== undefined) {
    const client = new pg.Client({ connectionString: DATABASE_URL })
    await client.connect()
    try {
      await client.query(`set search_path to "${schema}"`)
      return (await client.query(query)).rows as T[]
    } finally {
      await client.end()
    }
  }
  const db = await PGlite.create(path.join(dataDir!, 'pgdata'))
  try {
    return (await db.query<T>(query)).rows
  } finally {
    await db.close()
  }
}

/** SQL that needs the embedded database to itself: the host is stopped around it. */
async function offline<T> (work: () => Promise<T>): Promise<T> {
  if (DATABASE_URL !== undefined) return work()
  await host.stop()
  try {
    return await work()
  } finally {
    await host.start()
  }
}

async function shoutCount (): Promise<number> {
  return offline(async () => Number((await sql<{ n: number }>('select count(*)::int as n from shoutbox_shouts'))[0]!.n))
}

async function seedTo (total: number, cookie: string): Promise<void> {
  await offline(async () => {
    const current = Number((await sql<{ n: number }>('select count(*)::int as n from shoutbox_shouts'))[0]!.n)
    if (total > current) {
      log(`seeding ${total - current} shouts (to ${total})`)
      await sql(`insert into shoutbox_shouts (message, username, date)
        select 'Seeded shout number ' || g || ', about as long as a real one.', 'admin', ${Date.now()} + g
        from generate_series(1, ${total - current}) as g`)
    }
  })
  // Written behind the service's back: a settings write announces a change, dropping caches.
  await api('PUT', '/api/panel/shoutbox/config', { maxMessageLength: 500 }, cookie)
}

// ---------------------------------------------------------------- measurements

interface Load { requestsPerSecond: number, total: number, p50: number, p99: number, non2xx: number, errors: number, timeouts: number, status2xx: number }

async function load (job: Record<string, unknown>): Promise<Load> {
  const child = node(['--import', 'tsx', 'bench/load.ts', JSON.stringify(job)])
  return JSON.parse(await firstLine(child)) as Load
}

interface Comparison { host: Load[], bare: Load[] }

async function compareList (label: string): Promise<Comparison> {
  const sample = await fetch(`${await host.url()}/api/shoutbox/list`)
  const body = await sample.text()
  const headers: Record<string, string> = {}
  for (const name of ['content-type', 'etag', 'cache-control', 'x-content-type-options']) {
    const value = sample.headers.get(name)
    if (value !== null) headers[name] = value
  }
  const file = path.join(os.tmpdir(), `shoutbox-bench-body-${process.pid}.json`)
  await fs.writeFile(file, JSON.stringify({ body, headers }))
  const barePort = await freePort()
  const bare = node(['--import', 'tsx', 'bench/bare-server.ts', file, String(barePort)])
  await firstLine(bare)
  const hostUrl = `${await host.url()}/api/shoutbox/list`
  const bareUrl = `http://127.0.0.1:${barePort}/`
  log(`${label}: ${body.length} bytes a response; warming up`)
  await load({ url: hostUrl, connections: 50, durationSeconds: 1 })
  await load({ url: bareUrl, connections: 50, durationSeconds: 1 })
  const result: Comparison = { host: [], bare: [] }
  for (let round = 1; round <= ROUNDS; round++) {
    result.host.push(await load({ url: hostUrl, connections: 50, durationSeconds: SECONDS }))
    result.bare.push(await load({ url: bareUrl, connections: 50, durationSeconds: SECONDS }))
    log(`${label}, round ${round}: host ${Math.round(result.host.at(-1)!.requestsPerSecond)} req/s, bare ${Math.round(result.bare.at(-1)!.requestsPerSecond)} req/s`)
  }
  bare.kill('SIGTERM')
  await fs.rm(file, { force: true })
  return result
}

async function publishLoad (cookie: string): Promise<{ load: Load, stored: number, lost: number, logged: number }> {
  const before = await shoutCount()
  const logsBefore = await offline(async () => Number((await sql<{ n: number }>(`select count(*)::int as n from activity_logs where type = 'CREATED_SHOUT'`))[0]!.n))
  const result = await load({
    url: `${await host.url()}/api/panel/shoutbox`,
    connections: 32,
    durationSeconds: SECONDS * 2,
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'A benchmark shout' })
  })
  // Requests still in flight when the load stopped may commit a moment later.
  await new Promise(resolve => setTimeout(resolve, 1000))
  const [stored, logged] = await offline(async () => [
    Number((await sql<{ n: number }>('select count(*)::int as n from shoutbox_shouts'))[0]!.n) - before,
    Number((await sql<{ n: number }>(`select count(*)::int as n from activity_logs where type = 'CREATED_SHOUT'`))[0]!.n) - logsBefore
  ])
  return { load: result, stored, logged, lost: Math.max(0, result.status2xx - stored) }
}

async function fanOut (cookie: string): Promise<{ p50: number, p99: number, delivered: number, expected: number, rssMiB: number }> {
  const subscribers = node(['--import', 'tsx', 'bench/subscribers.ts', `${await host.url()}/api/shoutbox/stream`, String(SUBSCRIBERS)])
  await firstLine(subscribers)
  log(`${SUBSCRIBERS} subscribers connected`)
  const answeredAt: number[] = []
  const PUBLISHES = 20
  for (let i = 0; i < PUBLISHES; i++) {
    const response = await api('POST', '/api/panel/shoutbox', { message: `fan-out ${i}` }, cookie)
    answeredAt.push(Date.now())
    if (response.status !== 200) throw new Error(`publish failed: ${JSON.stringify(response.json)}`)
    await new Promise(resolve => setTimeout(resolve, 250))
  }
  await new Promise(resolve => setTimeout(resolve, 1000))
  const rssMiB = await host.rssMiB()
  subscribers.stdin!.write('done\n')
  const arrivals = JSON.parse(await firstLine(subscribers)) as Record<string, number[]>
  const ids = Object.keys(arrivals).map(Number).sort((a, b) => a - b)
  const latencies: number[] = []
  ids.forEach((id, index) => {
    for (const at of arrivals[String(id)]!) latencies.push(at - answeredAt[index]!)
  })
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), delivered: latencies.length, expected: PUBLISHES * SUBSCRIBERS, rssMiB }
}

// ---------------------------------------------------------------- the run

/** Ends the run early (--list-only) and still prints the table. */
class Finished extends Error {}

const rows: string[][] = []
const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—'
const listRow = (label: string, c: Comparison): { host: number } => {
  const hostRps = median(c.host.map(l => l.requestsPerSecond))
  const bareRps = median(c.bare.map(l => l.requestsPerSecond))
  const non2xx = c.host.reduce((sum, l) => sum + l.non2xx + l.errors + l.timeouts, 0)
  rows.push([label, fmt(hostRps), fmt(bareRps), fmt(hostRps / bareRps, 2), `${fmt(median(c.host.map(l => l.p50)))} / ${fmt(median(c.host.map(l => l.p99)))} ms`, fmt(non2xx)])
  return { host: hostRps }
}

try {
  log(`database: ${DATABASE_URL === undefined ? 'embedded (PGlite)' : `PostgreSQL, schema ${schema}`}; ${ROUNDS} rounds of ${SECONDS} s`)
  await host.start()
  if ((await api('POST', '/api/setup/finish', ADMIN)).status !== 200) throw new Error('setup failed')
  const login = await fetch(`${await host.url()}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.username, password: ADMIN.password })
  })
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!

  await seedTo(1000, cookie)
  await api('PUT', '/api/panel/shoutbox/config', { maxShouts: null }, cookie)
  listRow('list, all of 1,000 shouts', await compareList('1,000 stored, no maxShouts'))

  await seedTo(10_000, cookie)
  await api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 }, cookie)
  const at10k = listRow('list, maxShouts 50 of 10,000', await compareList('10,000 stored, maxShouts 50'))

  if (!options['skip-million'] && !options['list-only']) {
    await seedTo(1_000_000, cookie)
    const at1m = listRow('list, maxShouts 50 of 1,000,000', await compareList('1,000,000 stored, maxShouts 50'))
    rows.push(['  1,000,000 vs 10,000 (host)', '', '', fmt(at1m.host / at10k.host, 2), '', ''])
  }

  if (options['list-only']) throw new Finished()
  const publish = await publishLoad(cookie)
  rows.push([`publish, 32 clients (${publish.load.total} sent)`, fmt(publish.load.requestsPerSecond), '', '', `${fmt(publish.load.p50)} / ${fmt(publish.load.p99)} ms`, fmt(publish.load.non2xx + publish.load.errors)])
  rows.push([`  acknowledged ${publish.load.status2xx}, stored ${publish.stored}, logged ${publish.logged}, lost ${publish.lost}`, '', '', '', '', ''])

  const fan = await fanOut(cookie)
  rows.push([`stream, ${SUBSCRIBERS} subscribers (${fan.delivered}/${fan.expected} delivered)`, '', '', '', `${fmt(fan.p50)} / ${fmt(fan.p99)} ms`, ''])
  rows.push([`  host resident memory with them connected: ${fmt(fan.rssMiB)} MiB`, '', '', '', '', ''])
} catch (error) {
  if (!(error instanceof Finished)) throw error
} finally {
  await host.stop()
  if (DATABASE_URL !== undefined) {
    const client = new pg.Client({ connectionString: DATABASE_URL })
    await client.connect()
    await client.query(`drop schema if exists "${schema}" cascade`)
    await client.end()
  } else {
    await fs.rm(dataDir!, { recursive: true, force: true })
  }
}

const header = ['scenario', 'host req/s', 'bare node:http req/s', 'ratio', 'p50 / p99', 'non-2xx']
const widths = header.map((h, i) => Math.max(h.length, ...rows.map(r => (r[i] ?? '').length)))
const line = (cells: string[]): string => cells.map((c, i) => i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)).join('  ')
process.stdout.write(`\nShoutbox benchmark — ${DATABASE_URL === undefined ? 'embedded PostgreSQL (PGlite)' : 'PostgreSQL'}, ${os.cpus().length} cores, Node ${process.version}, ${ROUNDS} rounds × ${SECONDS} s, medians\n\n`)
process.stdout.write(line(header) + '\n' + widths.map(w => '-'.repeat(w)).join('  ') + '\n')
for (const row of rows) process.stdout.write(line(row) + '\n')
