import { fork } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import knex, { type Knex } from 'knex'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import ClientPgLite from 'knex-pglite'
import { STATEMENT } from '../logging.js'
import { claimDataDir } from './data-dir-claim.js'
import { MIGRATION_LOCK } from './tables.js'

// int8 (bigint) columns hold ids and millisecond dates, all far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value))

export type DatabaseKind = 'postgres' | 'embedded'

export interface OpenDatabase {
  readonly knex: Knex
  readonly kind: DatabaseKind
  /** For PostgreSQL: how to open a dedicated connection (LISTEN needs one outside the pool). */
  readonly url: string | undefined
  readonly schema: string
}

export interface DatabaseOptions {
  /** `postgres://…`; unset → embedded PostgreSQL. */
  readonly url?: string | undefined
  readonly schema?: string
  /** Where the embedded database keeps its files; unset with no `pglite` → in memory. */
  readonly dataDir?: string
  /** A ready PGlite instance (tests start each from a prepared image). */
  readonly pglite?: PGlite
  readonly poolSize?: number
  /**
   * PostgreSQL stops a statement that runs longer (a lock it waits for, a plan gone wrong),
   * and the request answers 503 (src/host/http/error-handler.ts); default 10 s. The
   * embedded database keeps no time limit.
   */
  readonly statementTimeoutMs?: number
  /** Where knex's own messages go (the host's log); unset → knex's default, the console. */
  readonly logger?: DatabaseLogger
}

export interface DatabaseLogger {
  debug (message: string): void
  warn (message: string): void
  error (message: string): void
}

/**
 * Knex's messages, in the host's log. "Acquire connection error" comes with each failed
 * connection, stack and all, while the host already says what matters in its own words:
 * one line when it cannot start, a warning per request answered 503 when the database
 * goes away. So it is kept for debug.
 */
const knexLog = (logger: DatabaseLogger): Knex.Config['log'] => ({
  warn: message => /^Acquire connection error/.test(message) ? logger.debug(message) : logger.warn(message),
  error: message => logger.error(message),
  // Knex passes one sentence already made. Its debug messages (only with `debug: true`,
  // never set here) would hold bindings, so they are not routed.
  deprecate: (message: string) => logger.warn(`knex: ${message}`)
})

/**
 * The embedded PostgreSQL touches all of its shared buffers when it starts, so
 * PostgreSQL's default of 128 MB would be resident from the first second. A community
 * site's data fits in 32 MB many times over (and the list is answered from memory
 * anyway). The README's "Memory" paragraph has the measured difference.
 */
const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB']

export async function openDatabase (options: DatabaseOptions): Promise<OpenDatabase> {
  const schema = options.schema ?? 'public'
  if (options.url !== undefined) {
    const connections = new Map<string, KnexConnection>()
    const db = knex({
      client: 'pg',
      connection: {
        connectionString: options.url,
        connectionTimeoutMillis: 5000,
        // A query that hangs (a dropped connection, a lock) must fail, not hold a request forever.
        statement_timeout: options.statementTimeoutMs ?? 10_000,
        application_name: 'shoutbox'
      },
      searchPath: [schema],
      pool: { min: 0, max: options.poolSize ?? 10, afterCreate: knownByUid(connections) },
      acquireConnectionTimeout: 5000,
      ...(options.logger === undefined ? {} : { log: knexLog(options.logger) })
    })
    keepFailedStatements(db)
    dropConnectionsThatLostAStatement(db, connections)
    await createSchema(db, schema)
    return { knex: db, kind: 'postgres', url: options.url, schema }
  }
  let pglite = options.pglite
  if (pglite === undefined && options.dataDir !== undefined) {
    keepBaselineWasmCodeOnly()
    await claimDataDir(options.dataDir)
    const dir = path.join(options.dataDir, 'pgdata')
    await createEmbeddedFiles(dir)
    pglite = await PGlite.create(dir, { relaxedDurability: false, startParams: EMBEDDED_START_PARAMS })
    syncWalToDisk(pglite, dir)
  }
  pglite ??= await PGlite.create()
  const instance = pglite
  const db = knex({
    client: ClientPgLite as unknown as typeof knex.Client,
    dialect: 'postgres',
    connection: () => ({ pglite: instance }) as unknown as Knex.StaticConnectionConfig,
    searchPath: [schema]
  })
  keepFailedStatements(db)
  await createSchema(db, schema)
  return { knex: db, kind: 'embedded', url: undefined, schema }
}

/** A pooled pg connection as knex keeps it: its id, and the mark that has the pool destroy it. */
type KnexConnection = pg.Client & { __knexUid: string, __knex__disposed?: unknown }

/** The pool's `afterCreate`: each new connection by its knex id, until it ends. */
function knownByUid (connections: Map<string, KnexConnection>) {
  return (connection: KnexConnection, done: (error: Error | null, connection: KnexConnection) => void): void => {
    connections.set(connection.__knexUid, connection)
    connection.once('end', () => connections.delete(connection.__knexUid))
    done(null, connection)
  }
}

/**
 * A prepared statement (`prepared`, src/sdk/prepared.ts) that PostgreSQL no longer holds
 * while the driver believes it does (26000: a statement dropped after a failed bind), or
 * whose plan no longer fits its rows (0A000, after a column's type changed), would fail
 * on that connection every time: the connection is marked, the pool destroys it instead
 * of lending it again (knex checks the mark when it next picks it, or when it has idled
 * 30 s), and the next statement gets a new one, where it is prepared anew.
 */
function dropConnectionsThatLostAStatement (db: Knex, connections: ReadonlyMap<string, KnexConnection>): void {
  db.on('query-error', (error: unknown, query: { __knexUid?: unknown }) => {
    const { code, message } = error as { code?: unknown, message?: unknown }
    const lost = code === '26000' || (code === '0A000' && typeof message === 'string' && message.includes('cached plan'))
    if (!lost || typeof query?.__knexUid !== 'string') return
    const connection = connections.get(query.__knexUid)
    if (connection !== undefined) connection.__knex__disposed = error
  })
}

/**
 * A failed statement's text, with its `$n` placeholders and never its values, travels
 * with its error: the log shows it in place of the database's message, which may quote
 * values (src/host/logging.ts).
 */
function keepFailedStatements (db: Knex): void {
  db.on('query-error', (error: unknown, query: { sql?: unknown }) => {
    if (error instanceof Error && typeof query?.sql === 'string') Object.defineProperty(error, STATEMENT, { value: query.sql, configurable: true })
  })
}

/**
 * The node flag that keeps only V8's baseline code for WebAssembly; `npm start` and
 * `npm run dev` pass it.
 */
export const BASELINE_WASM_FLAG = '--liftoff-only'

/**
 * V8 compiles WebAssembly at once with its baseline compiler (Liftoff), then its hot
 * functions again with its optimising one. For the embedded PostgreSQL that second
 * compiler costs a lot of memory: on Node 20 the optimised copies cost tens of MiB
 * resident; on Node 24, compiling them as the database starts takes the process to about
 * 780 MiB for a moment, against about 220 with baseline code only. Baseline code only
 * costs publishes a fifth of their speed on Node 24 (none measured on Node 20). The
 * README's "Memory" paragraph has the figures.
 *
 * From the command line the flag is set before V8 starts, the supported way. Node 20
 * also takes it at run time, before the module is compiled (process-wide, but the host
 * runs no other WebAssembly), so a host started as `node dist/host/server.js` gets it
 * there too. Node 24 does not: a flag set at run time did not lower the peak, and a Node
 * 24 test process that made several embedded databases crashed (SIGSEGV) once with it.
 */
function keepBaselineWasmCodeOnly (): void {
  if (!startedWithBaselineWasmFlag() && !onNode24()) v8.setFlagsFromString(BASELINE_WASM_FLAG)
}

const startedWithBaselineWasmFlag = (): boolean => process.execArgv.includes(BASELINE_WASM_FLAG)
/** `engines` admits Node 20 and 24; what holds for 24 is taken to hold for anything after 20. */
const onNode24 = (): boolean => Number(process.versions.node.split('.')[0]) > 20

/**
 * What the log should say when the embedded database runs with V8's optimising code for
 * it, which only a Node 24 host started without the flag does; undefined otherwise.
 */
export function embeddedMemoryWarning (): string | undefined {
  if (startedWithBaselineWasmFlag() || !onNode24()) return undefined
  return `node was started without ${BASELINE_WASM_FLAG}: on Node 24 the embedded database then takes the process to about 780 MiB as it starts (about 220 with it); npm start passes it`
}

/**
 * `create schema if not exists` is not safe against itself: two processes starting
 * together on a fresh PostgreSQL can both find the schema missing, and the second
 * fails on pg_namespace's unique index. The same advisory lock as the migrations
 * makes them take turns.
 */
async function createSchema (db: Knex, schema: string): Promise<void> {
  await db.transaction(async trx => {
    await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK])
    await trx.raw('create schema if not exists ??', [schema])
  })
}

/**
 * A new embedded database runs initdb, which takes the process to several hundred MiB;
 * the WebAssembly memory it grew is never given back (nor by a worker thread once it
 * ends). So a child process makes the files, and the host opens them as on any
 * restart. They are made in a folder beside `dir` and moved into place when complete,
 * so a first start that is interrupted leaves no half-made database behind.
 */
async function createEmbeddedFiles (dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true })
  if (await fs.access(path.join(dir, 'PG_VERSION')).then(() => true, () => false)) return
  const making = `${dir}.new`
  await fs.rm(making, { recursive: true, force: true })
  const script = fileURLToPath(new URL('./create-embedded.js', import.meta.url))
  const child = fork(script, [making], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const [code, signal] = await once(child, 'exit') as [number | null, string | null]
  if (code !== 0) throw new Error(`could not create the embedded database in ${dir} (exit ${code ?? signal})`)
  await fs.rename(making, dir)
}

/**
 * The embedded PostgreSQL writes its WAL through to the files at every commit, so a
 * killed process loses nothing it acknowledged. Its file layer cannot fsync, though, so
 * after a power cut the disk might lack the newest writes: once a second we fsync the WAL
 * files written since, bounding that window to about a second.
 */
function syncWalToDisk (pglite: PGlite, dataDir: string): void {
  const walDir = path.join(dataDir, 'pg_wal')
  let lastSync = 0
  const timer = setInterval(() => {
    if (pglite.closed) {
      clearInterval(timer)
      return
    }
    const started = Date.now()
    void fs.readdir(walDir).then(async files => {
      for (const file of files) {
        const full = path.join(walDir, file)
        const stat = await fs.stat(full).catch(() => undefined)
        if (stat === undefined || !stat.isFile() || stat.mtimeMs < lastSync - 1000) continue
        const handle = await fs.open(full, 'r+')
        await handle.sync().finally(() => handle.close())
      }
      lastSync = started
    }).catch(() => {})
  }, 1000)
  timer.unref()
}
