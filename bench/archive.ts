/**
 * Archive requests per second (CONTRACT §14): `GET /api/shoutbox/archive` at the first
 * page, at a page a million shouts back, and a search, each over real HTTP with the load
 * generator (bench/load.ts, autocannon) in a process of its own.
 *
 *   node --import tsx bench/archive.ts                           # embedded database
 *   DATABASE_URL=postgres://… node --import tsx bench/archive.ts  # PostgreSQL (a schema of its own, dropped after)
 *   node --import tsx bench/archive.ts --seconds 10 --shouts 1000000
 *
 * Standalone, it makes its own installation from the production build (`npm run build`
 * first), seeds `--shouts` shouts and prints a table. From bench/run.ts, against a site
 * that already holds a million shouts:
 *
 *   import { measureArchive } from './archive.js'
 *   const archive = await measureArchive({ baseUrl: await big.url(), deepBefore: 1000, seconds: SECONDS, load })
 *   // archive.firstPage / archive.deepPage / archive.search: { requestsPerSecond, p50, p99, non2xx, … }
 *
 * where `load` is run.ts's own runner (so the load generator is pinned to its core like
 * every other measurement); without it, bench/load.ts is spawned here.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { START_FLAGS } from '../test/helpers/start-flags.js'
import { SEARCHES_PER_CLIENT } from '../src/shoutbox/searches.js'
import { querySql } from '../test/helpers/storage-sql.js'

const root = fileURLToPath(new URL('../', import.meta.url))

/** What bench/load.ts prints for one run. */
export interface Load {
  requestsPerSecond: number
  total: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  timeouts: number
  status2xx: number
}

export type LoadRunner = (job: { url: string, connections: number, durationSeconds: number }) => Promise<Load>

export interface ArchiveOptions {
  /** The site, e.g. `http://127.0.0.1:8088`. */
  readonly baseUrl: string
  /** The `before` of the deep page: an id a million shouts below the newest (the seeded ids start at 1, so 1000 will do). */
  readonly deepBefore: number
  readonly seconds: number
  /** Default 50, as the list's measurements use. */
  readonly connections?: number
  /** Words for the search measurement; default `needle`, which the standalone seed puts in one shout in 10,000. */
  readonly search?: string
  /** How to run the load; default: bench/load.ts spawned here. */
  readonly load?: LoadRunner
}

export interface ArchiveResult {
  readonly firstPage: Load
  readonly deepPage: Load
  readonly search: Load
}

/**
 * Inserts `shouts` shouts with words as a board has them (a few common, most rare: a power
 * law over 1,000 words) and `needle` in one in 10,000, so PostgreSQL's statistics, and so
 * its plans, are those of a real board. Identical messages would tell the planner that
 * every word is everywhere: it then walks the primary key for a rare word (measured: a
 * search for `needle` then took over a second a request).
 */
export function archiveSeedSql (shouts: number): string {
  return `insert into shoutbox_shouts (message, username, date)
      select 'Seeded shout ' || g || ' about w' || floor(1000 * power(((g::bigint * 7919) % 10007) / 10007.0, 3))::int
          || ' and w' || floor(1000 * power(((g::bigint * 104729) % 9973) / 9973.0, 3))::int
          || case when g % 10000 = 0 then ' with a needle' else '' end,
        'admin', ${Date.now() - shouts} + g
      from generate_series(1, ${shouts}) as g`
}

/** Measures the three archive requests one after another, after a one-second warm-up each. */
export async function measureArchive (options: ArchiveOptions): Promise<ArchiveResult> {
  const run = options.load ?? spawnLoad
  const connections = options.connections ?? 50
  const url = (query: string): string => `${options.baseUrl}/api/shoutbox/archive?${query}`
  const measure = async (query: string, at = connections): Promise<Load> => {
    const check = await fetch(url(query))
    if (!check.ok) throw new Error(`archive?${query} answered ${check.status}: ${await check.text()}`)
    await run({ url: url(query), connections: at, durationSeconds: 1 })
    return run({ url: url(query), connections: at, durationSeconds: options.seconds })
  }
  return {
    firstPage: await measure('limit=20'),
    deepPage: await measure(`limit=20&before=${options.deepBefore}`),
    // A client runs two searches at once (SEARCHES_PER_CLIENT): the load keeps to that.
    search: await measure(`limit=20&q=${encodeURIComponent(options.search ?? 'needle')}`, SEARCHES_PER_CLIENT)
  }
}

// ---------------------------------------------------------------- standalone

/** The load generator on the second core and servers on the first, when taskset can (as bench/run.ts does). */
const PIN = await new Promise<boolean>(resolve => {
  const probe = spawn('taskset', ['-c', '0', 'true'])
  probe.on('error', () => resolve(false))
  probe.on('exit', code => resolve(code === 0 && os.cpus().length >= 2))
})

function node (args: string[], env: NodeJS.ProcessEnv, core: 0 | 1): ChildProcess {
  const [command, argv] = PIN ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args]
  return spawn(command, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
}

async function spawnLoad (job: { url: string, connections: number, durationSeconds: number }): Promise<Load> {
  const child = node(['--import', 'tsx', 'bench/load.ts', JSON.stringify(job)], {}, 1)
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const code = await new Promise(resolve => child.on('exit', resolve))
  if (code !== 0) throw new Error(`bench/load.ts exited with ${String(code)}`)
  return JSON.parse(output.trim().split('\n').at(-1)!) as Load
}

async function freePort (): Promise<number> {
  return new Promise(resolve => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

const log = (line: string): void => { process.stderr.write(`# ${line}\n`) }

async function standalone (): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, shouts: { type: 'string', default: '1000000' } } })
  const seconds = Number(values.seconds)
  const shouts = Number(values.shouts)
  const serverEntry = path.join(root, 'dist/host/server.js')
  if (!await fs.access(serverEntry).then(() => true, () => false)) throw new Error('no production build: run npm run build first')
  const databaseUrl = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
  const schema = `bench_archive_${randomBytes(4).toString('hex')}`
  const dataDir = databaseUrl === undefined ? await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-bench-archive-')) : undefined
  const env: NodeJS.ProcessEnv = databaseUrl === undefined ? { DATA_DIR: dataDir, DATABASE_URL: '' } : { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema }
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const setupToken = randomBytes(16).toString('hex')
  let host: ChildProcess | undefined

  const start = async (): Promise<void> => {
    host = node([...START_FLAGS, serverEntry, '--port', String(port), '--host', '127.0.0.1'], { ...env, LOG_LEVEL: 'warn', SETUP_TOKEN: setupToken }, 0)
    host.stdout!.resume()
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      if (await fetch(`${baseUrl}/api/health`).then(r => r.ok, () => false)) return
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    throw new Error('the host did not start')
  }
  const stop = async (): Promise<void> => {
    const child = host
    if (child === undefined || child.exitCode !== null) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }

  try {
    log(`database: ${databaseUrl === undefined ? 'embedded (PGlite)' : 'PostgreSQL'}; ${shouts.toLocaleString('en-US')} shouts; ${seconds} s a measurement`)
    await start()
    const setup = await fetch(`${baseUrl}/api/setup/finish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', email: 'admin@example.org', password: 'benchmark password', setupToken })
    })
    if (!setup.ok) throw new Error(`setup failed: ${await setup.text()}`)
    // The embedded database belongs to one process: the host steps aside while it is seeded.
    if (databaseUrl === undefined) await stop()
    log(`seeding ${shouts.toLocaleString('en-US')} shouts`)
    const seeded = Date.now()
    await querySql({ env }, archiveSeedSql(shouts))
    await querySql({ env }, 'vacuum analyze shoutbox_shouts')
    await querySql({ env }, 'checkpoint')
    log(`seeded in ${((Date.now() - seeded) / 1000).toFixed(0)} s`)
    if (databaseUrl === undefined) await start()
    const result = await measureArchive({ baseUrl, deepBefore: 1000, seconds })
    const rows: Array<[string, Load]> = [
      ['archive, first page (limit 20)', result.firstPage],
      [`archive, a page ${(shouts - 1000).toLocaleString('en-US')} shouts back`, result.deepPage],
      ['archive, search "needle" (1 in 10,000)', result.search]
    ]
    const width = Math.max(...rows.map(([label]) => label.length))
    process.stdout.write(`\nShoutbox archive — ${databaseUrl === undefined ? 'embedded PostgreSQL (PGlite)' : 'PostgreSQL'}, ${os.cpus().length} cores${PIN ? ' (server on core 0, load on core 1)' : ''}, Node ${process.version}, 50 connections × ${seconds} s\n\n`)
    process.stdout.write(`${'request'.padEnd(width)}  ${'req/s'.padStart(8)}  ${'p50 / p99'.padStart(12)}  non-2xx\n`)
    for (const [label, load] of rows) {
      const failures = load.non2xx + load.errors + load.timeouts
      process.stdout.write(`${label.padEnd(width)}  ${Math.round(load.requestsPerSecond).toLocaleString('en-US').padStart(8)}  ${`${load.p50} / ${load.p99} ms`.padStart(12)}  ${failures}\n`)
    }
  } finally {
    await stop()
    if (databaseUrl !== undefined) {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(`drop schema if exists "${schema}" cascade`)
      await client.end()
    } else if (dataDir !== undefined) {
      await fs.rm(dataDir, { recursive: true, force: true })
    }
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await standalone()

/** "and" forty times: a word every shout of archiveSeedSql's holds, as "the" is on a real board (164 characters, as the attacker's "the"). */
const AND_40 = Array.from({ length: 40 }, () => 'and').join(' ')

/** Searches a board seeded by archiveSeedSql makes hard or easy, each with what it is; the attacker's first. */
export const SEARCHES: ReadonlyArray<readonly [string, string]> = [
  ['a word every shout holds, forty times, and its negation (the attack seen on main)', `${AND_40} -and`],
  ['a word every shout holds, forty times', AND_40],
  ['two words every shout holds, 18 times each, and a negation', `${'and about '.repeat(18)}-w0`],
  ['a phrase of two words every shout holds, in an order none has', '"about and"'],
  ['a quoted phrase no shout holds', '"nothing like this was ever said"'],
  ['a word no shout holds', 'zzzznothing'],
  ['a rare word (1 in 10,000)', 'needle'],
  ['a common word (1 in 5)', 'w0'],
  ['two words every shout holds', 'about and'],
  ['all but a common word', '-w0']
]

export interface SearchTimes {
  readonly label: string
  readonly q: string
  /** Milliseconds a request, one at a time, over HTTP. */
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** Shouts on the first page, and its `next`. */
  readonly found: number
  readonly next: number | null
}

/**
 * Each of SEARCHES, `times` requests one after another (after one to warm up), over HTTP:
 * how long one search takes, whatever the words (p99 of 100: the second slowest).
 */
export async function measureSearches (baseUrl: string, times = 100): Promise<SearchTimes[]> {
  const results: SearchTimes[] = []
  for (const [label, q] of SEARCHES) {
    const url = `${baseUrl}/api/shoutbox/archive?limit=20&q=${encodeURIComponent(q)}`
    // The load before may have left searches of its client waiting in the host: their turn comes first.
    let first = await fetch(url)
    for (let tries = 0; (first.status === 429 || first.status === 503) && tries < 20; tries++) {
      await first.arrayBuffer()
      await new Promise(resolve => setTimeout(resolve, 500))
      first = await fetch(url)
    }
    if (!first.ok) throw new Error(`archive?q=${q} answered ${first.status}: ${await first.text()}`)
    const { shouts, next } = await first.json() as { shouts: unknown[], next: number | null }
    const ms: number[] = []
    for (let i = 0; i < times; i++) {
      const started = performance.now()
      const response = await fetch(url)
      await response.arrayBuffer()
      ms.push(performance.now() - started)
    }
    ms.sort((a, b) => a - b)
    results.push({ label, q, p50: ms[Math.floor(ms.length / 2)]!, p99: ms[Math.ceil(ms.length * 0.99) - 1]!, max: ms.at(-1)!, found: shouts.length, next })
  }
  return results
}

/**
 * The SQL of the search as it was before it read ranges of ids, one query for the whole
 * board, under EXPLAIN ANALYZE: its "Execution Time" is the database alone, the baseline.
 */
export function wholeBoardSearchSql (q: string): string {
  const words = q.replaceAll("'", "''")
  return `explain (analyze, timing off) select id, message, username, date from shoutbox_shouts
    where to_tsvector('simple', message) @@ websearch_to_tsquery('simple', '${words}') order by id desc limit 21`
}

/** Latencies and answers of one kind of request. */
export interface Requests {
  readonly count: number
  readonly p50: number
  readonly p99: number
  /** Answers by status (`ERR`: no answer). */
  readonly statuses: Record<string, number>
}

export interface FloodResult {
  /** Sign-in, publish and the list, one request after another each, with no search running. */
  readonly idle: { signIn: Requests, publish: Requests, list: Requests }
  /** The same while `addresses` clients search, SEARCHES_PER_CLIENT at once each, for as long. */
  readonly flood: { signIn: Requests, publish: Requests, list: Requests }
  readonly searches: Requests
  readonly addresses: number
}

interface Answer { status: number | 'ERR', ms: number, cookie?: string }

/** One HTTP request from `localAddress` (a loopback address: each is a client of its own to the host). */
async function send (agent: http.Agent, baseUrl: string, method: string, path: string, options: { body?: unknown, cookie?: string, localAddress: string }): Promise<Answer> {
  const url = new URL(path, baseUrl)
  const body = options.body === undefined ? undefined : JSON.stringify(options.body)
  const started = performance.now()
  return new Promise(resolve => {
    const request = http.request(url, {
      method,
      agent,
      localAddress: options.localAddress,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.cookie === undefined ? {} : { cookie: options.cookie }) }
    }, response => {
      response.resume()
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started, cookie: response.headers['set-cookie']?.[0]?.split(';')[0] }))
    })
    request.on('error', () => resolve({ status: 'ERR', ms: performance.now() - started }))
    request.end(body)
  })
}

function summarise (answers: Answer[]): Requests {
  const ms = answers.map(a => a.ms).sort((a, b) => a - b)
  const statuses: Record<string, number> = {}
  for (const { status } of answers) statuses[String(status)] = (statuses[String(status)] ?? 0) + 1
  return { count: ms.length, p50: ms[Math.floor(ms.length / 2)] ?? NaN, p99: ms[Math.max(0, Math.ceil(ms.length * 0.99) - 1)] ?? NaN, statuses }
}

/**
 * A member's requests, each kind in its own loop, one request at a time with `pauseMs`
 * between, for `seconds`: sign-in (from a new loopback address every four, so the sign-in
 * throttle, five attempts a login and address, never answers), a publish by the
 * administrator (staff: no flood rules) and the list.
 */
async function memberRequests (baseUrl: string, admin: { username: string, password: string }, cookie: string, seconds: number, addressBase: number, pauseMs = 50): Promise<{ signIn: Requests, publish: Requests, list: Requests }> {
  const agent = new http.Agent({ keepAlive: true })
  const until = Date.now() + seconds * 1000
  const loop = async (next: (i: number) => Promise<Answer>): Promise<Answer[]> => {
    const answers: Answer[] = []
    for (let i = 0; Date.now() < until; i++) {
      answers.push(await next(i))
      await new Promise(resolve => setTimeout(resolve, pauseMs))
    }
    return answers
  }
  const [signIn, publish, list] = await Promise.all([
    loop(i => send(agent, baseUrl, 'POST', '/api/auth/login', { body: admin, localAddress: `127.0.${addressBase + Math.floor(i / 1000)}.${1 + Math.floor(i / 4) % 250}` })),
    loop(i => send(agent, baseUrl, 'POST', '/panel/api/shoutbox', { body: { message: `flood bench ${addressBase} ${i}` }, cookie, localAddress: '127.0.0.1' })),
    loop(() => send(agent, baseUrl, 'GET', '/api/shoutbox/list', { localAddress: '127.0.0.1' }))
  ])
  agent.destroy()
  return { signIn: summarise(signIn), publish: summarise(publish), list: summarise(list) }
}

/**
 * Sign-in, publish and the list alone for `seconds`, then again while `addresses` clients
 * (127.0.1.1, 127.0.1.2, …) each run SEARCHES_PER_CLIENT searches at once without pause,
 * going round the attacker's SEARCHES (each answered one is followed at once by the next,
 * a refused one too): whether searches take what members need.
 */
export async function measureSearchFlood (baseUrl: string, admin: { username: string, password: string }, cookie: string, { seconds = 20, addresses = 16 } = {}): Promise<FloodResult> {
  const idle = await memberRequests(baseUrl, admin, cookie, seconds, 2)
  let stop = false
  const searched: Answer[] = []
  const agents = Array.from({ length: addresses }, () => new http.Agent({ keepAlive: true, maxSockets: SEARCHES_PER_CLIENT }))
  const searchers = agents.flatMap((agent, a) => Array.from({ length: SEARCHES_PER_CLIENT }, async (_, k) => {
    for (let i = k; !stop; i += SEARCHES_PER_CLIENT) {
      const q = SEARCHES[i % 5]![1]
      searched.push(await send(agent, baseUrl, 'GET', `/api/shoutbox/archive?limit=20&q=${encodeURIComponent(q)}`, { localAddress: `127.0.1.${a + 1}` }))
    }
  }))
  const flood = await memberRequests(baseUrl, admin, cookie, seconds, 4)
  stop = true
  await Promise.all(searchers)
  for (const agent of agents) agent.destroy()
  return { idle, flood, searches: summarise(searched), addresses }
}
