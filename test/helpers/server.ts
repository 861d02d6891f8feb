import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'
import { sessionCookieFor } from '../../src/host/identity/sessions.js'
import { ADDRESS_SECRET, SETUP_TOKEN } from './app.js'
import { DB_KIND, TEST_DATABASE_URL } from './database.js'
import { IMAGE, ensureImage } from './pglite-image.js'
import { START_FLAGS } from './start-flags.js'
import type { Tap } from './types.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
/** What `npm start` and `npm run dev` run: the compiled host (`npm test` builds it first). */
export const BUILT_SERVER_ENTRY = path.join(root, 'dist/host/server.js')

/** Where a host process keeps its data: a schema on PostgreSQL, a data folder for the embedded one. */
export interface ServerStorage {
  readonly env: NodeJS.ProcessEnv
}

/** Fresh storage for host processes, removed when the test ends. */
export async function serverStorage (t: Tap): Promise<ServerStorage> {
  if (DB_KIND === 'postgres') {
    const schema = `p_${randomBytes(6).toString('hex')}`
    t.teardown(async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await client.connect()
      await client.query(`drop schema if exists "${schema}" cascade`)
      await client.end()
    })
    // Every process of one database is given the same secret, as an operator must.
    return { env: { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, ADDRESS_SECRET } }
  }
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-data-'))
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }))
  // Skip the several-second initdb: the prepared image is the data folder's files, as a
  // tarball (with absolute names, which tar makes relative). Unpacking it takes a tenth of
  // what starting and closing an embedded database on it does.
  await ensureImage()
  const pgdata = path.join(dataDir, 'pgdata')
  await fs.mkdir(pgdata)
  await promisify(execFile)('tar', ['-xzf', IMAGE, '-C', pgdata])
  return { env: { DATA_DIR: dataDir, DATABASE_URL: '' } }
}

/**
 * A compiled file under dist/ (the server entry by default), refused when missing or older
 * than a source file: a stale build would test old code.
 */
export async function builtEntry (entry = BUILT_SERVER_ENTRY): Promise<string> {
  const built = await fs.stat(entry).catch(() => undefined)
  const sources = await fs.readdir(path.join(root, 'src'), { recursive: true, withFileTypes: true })
  for (const source of sources) {
    if (!source.isFile()) continue
    const file = path.join(source.parentPath, source.name)
    if (built === undefined || (await fs.stat(file)).mtimeMs > built.mtimeMs) {
      throw new Error(`dist/ is missing or older than ${path.relative(root, file)}: run npm run build (npm test builds first)`)
    }
  }
  return entry
}

export async function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export interface RunningServer {
  readonly child: ChildProcess
  readonly url: string
  readonly port: number
  /** Everything the process wrote to stderr so far. */
  stderr (): string
  /** Everything it wrote to stdout (its log) so far. */
  stdout (): string
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>
}

export interface StartOptions {
  readonly args?: readonly string[]
  readonly env?: NodeJS.ProcessEnv
  readonly port?: number
  /** Run as this user id instead of root (for the privileged-port check). */
  readonly uid?: number
  /** Resolve only when /api/health answers (default true). */
  readonly waitUntilReady?: boolean
  /** The node flags before the entry; default START_FLAGS, those `npm start` passes. */
  readonly nodeFlags?: readonly string[]
}

/**
 * Starts the host as a real process, as `npm start` does: the compiled
 * `dist/host/server.js` (which imports in a third of the time the source takes through
 * tsx, and meets what only the built code meets: Node's own loader). It is killed when
 * the test ends.
 */
export async function startServer (t: Tap, options: StartOptions = {}): Promise<RunningServer> {
  const port = options.port ?? await freePort()
  const args = [...(options.nodeFlags ?? START_FLAGS), await builtEntry(), '--port', String(port), '--host', '127.0.0.1', ...(options.args ?? [])]
  // tap adds NODE_OPTIONS to every child (to track it); `env -u` drops it, then execs node
  // in place, so the pid stays the server's.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', SETUP_TOKEN, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid })
  })
  let stderr = ''
  let stdout = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })
  const exited = new Promise<number | string>(resolve => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  })
  const server = { child, url: `http://127.0.0.1:${port}`, port, stderr: () => stderr, stdout: () => stdout, exited }
  if (options.waitUntilReady !== false) await waitUntilReady(server)
  return server
}

export async function waitUntilReady (server: RunningServer, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let exited = false
  void server.exited.then(() => { exited = true })
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the server exited: ${server.stderr()}`)
    try {
      const response = await fetch(`${server.url}/api/health`)
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise(resolve => setTimeout(resolve, 100)) // between the tries of this bounded retry
  }
  throw new Error(`the server did not answer within ${timeoutMs} ms: ${server.stderr()}`)
}

/** JSON over real HTTP. */
export async function http (server: { url: string }, method: string, url: string, options: { body?: unknown, cookie?: string, headers?: Record<string, string> } = {}) {
  const response = await fetch(server.url + url, {
    method,
    headers: {
      ...options.headers,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.cookie === undefined ? {} : { cookie: options.cookie })
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
  const text = await response.text()
  // Either name the host may give it (PUBLIC_URL over https adds the __Host- prefix).
  const names = [sessionCookieFor(undefined).name, sessionCookieFor('https://any').name]
  const setCookie = response.headers.getSetCookie().find(c => names.includes(c.slice(0, c.indexOf('='))))
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text) as Record<string, unknown>,
    cookie: setCookie?.split(';')[0]
  }
}
