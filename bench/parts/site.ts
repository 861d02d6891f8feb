/**
 * One installation of the bench: its own storage (a PostgreSQL schema, or a data folder
 * for the embedded database) and its host process, started as `npm start` starts it.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { START_FLAGS } from '../../test/helpers/start-flags.js'
import { querySql } from '../../test/helpers/storage-sql.js'
import { ADDRESS_SECRET, ADMIN, DATABASE_URL, SETUP_TOKEN, freePort, log, node, residentMiB } from './processes.js'

/** One installation: its own storage (a schema, or a data folder) and its host process. */
export class Site {
  readonly schema = `bench_${randomBytes(4).toString('hex')}`
  dataDir: string | undefined
  child: ChildProcess | undefined
  cookie = ''
  readonly port: Promise<number> = freePort()

  get env (): NodeJS.ProcessEnv {
    const storage = DATABASE_URL === undefined ? { DATA_DIR: this.dataDir, DATABASE_URL: '' } : { DATABASE_URL, DATABASE_SCHEMA: this.schema }
    // On PostgreSQL the host refuses to start without the secret its address keys derive from (every process must share it).
    return { ...storage, SETUP_TOKEN, ...(DATABASE_URL === undefined ? {} : { ADDRESS_SECRET }) }
  }

  async url (): Promise<string> {
    return `http://127.0.0.1:${await this.port}`
  }

  /** A fresh installation, set up, with the administrator signed in. */
  async create (): Promise<void> {
    if (DATABASE_URL === undefined) this.dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-bench-'))
    await this.start()
    if ((await this.api('POST', '/api/setup/finish', ADMIN)).status !== 200) throw new Error('setup failed')
    const login = await fetch(`${await this.url()}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.username, password: ADMIN.password })
    })
    this.cookie = login.headers.getSetCookie()[0]!.split(';')[0]!
  }

  async start (): Promise<void> {
    // BENCH_HOST_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof": flags for the host's node alone (a profile of the host, not of the load).
    const flags = process.env.BENCH_HOST_FLAGS?.split(' ').filter(flag => flag !== '') ?? []
    // BENCH_START_FLAGS="": the production start's own flags replaced (here, by none), to measure what they cost.
    const start = process.env.BENCH_START_FLAGS?.split(' ').filter(flag => flag !== '') ?? START_FLAGS
    this.child = node([...start, ...flags, 'dist/host/server.js', '--port', String(await this.port), '--host', '127.0.0.1'], {
      ...this.env,
      LOG_LEVEL: 'warn',
      // Harmless where nothing reads it: the stream parts connect 10,000 from loopback (20 an address),
      // and the reactions part one more reader besides; the webhooks part's receiver is on loopback.
      STREAMS_PER_CLIENT: '100000',
      MAX_STREAMS: '20000',
      WEBHOOKS_ALLOW_HTTP: '1',
      // The exports part's clients come from loopback, each named by X-Forwarded-For.
      TRUST_PROXY: '127.0.0.1',
      WEBHOOKS_ALLOW_PRIVATE: '1'
    }, 0)
    // BENCH_HOST_LOG=<file>: the host's log is kept there (appended), to see why a run failed.
    if (process.env.BENCH_HOST_LOG !== undefined) this.child.stdout!.pipe(createWriteStream(process.env.BENCH_HOST_LOG, { flags: 'a' }))
    else this.child.stdout!.resume()
    // Three minutes: on this shared machine, at a load average of 35, a first start took 55 s.
    const deadline = Date.now() + 180_000
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

  async destroy (): Promise<void> {
    await this.stop()
    if (DATABASE_URL !== undefined) {
      const client = new pg.Client({ connectionString: DATABASE_URL })
      await client.connect()
      await client.query(`drop schema if exists "${this.schema}" cascade`)
      await client.end()
    } else if (this.dataDir !== undefined) {
      await fs.rm(this.dataDir, { recursive: true, force: true })
    }
  }

  /** Resident memory of the host process, in MiB. */
  async rssMiB (): Promise<number> {
    return residentMiB(this.child!.pid!)
  }

  async api (method: string, url: string, body?: unknown): Promise<{ status: number, json: Record<string, unknown> }> {
    const response = await fetch(`${await this.url()}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(this.cookie === '' ? {} : { cookie: this.cookie }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, json: text === '' ? {} : JSON.parse(text) as Record<string, unknown> }
  }

  /** SQL on the site's database, directly: the embedded one only while its host is stopped (see offline). */
  async sql<T = Record<string, unknown>> (query: string): Promise<T[]> {
    return querySql<T>({ env: this.env }, query)
  }

  /** Work on the database that needs the embedded one to itself: the host is stopped around it. */
  async offline<T> (work: () => Promise<T>): Promise<T> {
    if (DATABASE_URL !== undefined) return work()
    await this.stop()
    try {
      return await work()
    } finally {
      await this.start()
    }
  }

  async count (table: string, where = 'true'): Promise<number> {
    return this.offline(async () => Number((await this.sql<{ n: number }>(`select count(*)::int as n from ${table} where ${where}`))[0]!.n))
  }

  async seedTo (total: number): Promise<void> {
    await this.offline(async () => {
      const current = Number((await this.sql<{ n: number }>('select count(*)::int as n from shoutbox_shouts'))[0]!.n)
      if (total <= current) return
      log(`seeding ${total - current} shouts (to ${total})`)
      await this.sql(`insert into shoutbox_shouts (message, username, date)
        select 'Seeded shout number ' || lpad(g::text, 7, '0') || ', about as long as a real one.', 'admin', ${Date.now()} + g
        from generate_series(1, ${total - current}) as g`)
      // Done now rather than by autovacuum or the checkpointer in the middle of a measurement.
      await this.sql('vacuum analyze shoutbox_shouts')
      await this.sql('checkpoint')
    })
    await new Promise(resolve => setTimeout(resolve, 3000))
    // Written behind the service's back: a settings write announces a change, dropping caches.
    await this.api('PUT', '/api/panel/shoutbox/config', { maxMessageLength: 500 })
  }
}
