/**
 * A steady stream of publishes, in a process of its own: POSTs `job.url` with the
 * administrator's session cookie at `job.rate` a second, evenly spaced (the i-th at
 * start + i / rate, whatever the answers before it took), until "stop" on stdin or
 * `job.maxSeconds`. Prints "started" when the first one goes out, then, once stopped and
 * the requests in flight answered (at most 15 s more: a host that fell behind works
 * through them before the next measurement), its figures as JSON.
 *
 * With `job.database`, the same publishes go straight to PostgreSQL instead, the host
 * not involved: each a commit of its own that writes the rows a host's publish writes
 * (the shout, its stream event, the activity entry, in tables made like the site's, with
 * their indexes) and sends a notice carrying the shout, which a listening connection
 * hears, as a host process's would. The sources part's `database` source: what the
 * commits alone cost a machine the list shares.
 *
 * With `job.windows`, it publishes without pause until `anchor` (the lead-in), then only
 * in every other window of `windowMs` from there (the first window after the anchor
 * idle, the second busy, and so on; bench/windows.ts), sleeping through the idle ones:
 * the alternating part compares the list's answers in the two kinds of window of one run.
 */
import net from 'node:net'
import pg from 'pg'
import { percentile } from './stats.js'
import { nextPublishing, publishing, publishingMs, type Windows } from './windows.js'

interface Job {
  readonly url: string
  readonly cookie: string
  readonly rate: number
  readonly maxSeconds: number
  /** The message prefix; each publish appends its number, so messages stay distinct. */
  readonly message: string
  /** The room's slug, sent with each publish (the panel publishes there); the default room when absent. */
  readonly room?: string
  /** Commit straight to this PostgreSQL, in copies of the site's tables in `schema` (made if missing), instead of posting to `url`. */
  readonly database?: { readonly url: string, readonly schema: string }
  /** Publish only in every other window after the anchor; see above. */
  readonly windows?: Windows
}

export interface PublisherResult {
  /** Publishes sent while running. */
  readonly sent: number
  /** Answered with a 2xx before the stop, and in all. */
  readonly okBeforeStop: number
  readonly ok: number
  /** Answered with another status, or failed (connection error, no answer within 10 s, or none by the end). */
  readonly errors: number
  /** Not sent because 256 were already waiting for an answer. */
  readonly skipped: number
  /** From the first publish to the stop (with `windows`, the lead-in and the busy windows only). */
  readonly seconds: number
  /** 2xx answers before the stop, per second of `seconds`. */
  readonly achievedPerSecond: number
  /** How late the latest publish went out after its due time. */
  readonly maxLagMs: number
  /** Publish answer times. */
  readonly p50: number
  readonly p99: number
}

const MAX_IN_FLIGHT = 256
const job = JSON.parse(process.argv[2]!) as Job
const target = new URL(job.url)
const interval = 1000 / job.rate
const head = `POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\ncookie: ${job.cookie}\r\n` +
  'content-type: application/json\r\ncontent-length: '

let sent = 0
let ok = 0
let okBeforeStop = 0
let errors = 0
let skipped = 0
let inFlight = 0
let maxLagMs = 0
let stopped = false
let stoppedAt = 0
const latencies: number[] = []

/**
 * A kept-alive connection to the host, one request at a time. Written by hand over
 * `net` rather than with node:http's client: this process shares the load generator's
 * core, and the client's CPU per publish is what the busy list loses besides the host's
 * (node:http's agent cost about twice as much here). It reads only what it needs: the
 * status and the length of the body (the host always sends content-length).
 */
class Connection implements Sender {
  private readonly socket: net.Socket
  private buffered = ''
  private done: ((status: number) => void) | undefined
  closed = false

  constructor () {
    this.socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true })
    this.socket.setEncoding('latin1')
    this.socket.on('data', (chunk: string) => { this.read(chunk) })
    const close = (): void => {
      this.closed = true
      this.finish(0)
    }
    this.socket.on('error', close)
    this.socket.on('close', close)
  }

  /** Sends `body`; `done` gets the status (0 when the connection failed first). */
  send (body: string, done: (status: number) => void): void {
    this.done = done
    this.socket.write(`${head}${Buffer.byteLength(body)}\r\n\r\n${body}`)
  }

  private read (chunk: string): void {
    this.buffered += chunk
    const end = this.buffered.indexOf('\r\n\r\n')
    if (end < 0) return
    const status = Number(this.buffered.slice(9, 12))
    const declared = /\r\ncontent-length: *(\d+)/i.exec(this.buffered.slice(0, end))?.[1]
    if (declared === undefined) { // not one this reader can follow: counted, and the connection not used again
      this.finish(status)
      this.destroy()
      return
    }
    const length = Number(declared)
    if (this.buffered.length < end + 4 + length) return
    this.buffered = this.buffered.slice(end + 4 + length)
    this.finish(status)
  }

  private finish (status: number): void {
    const done = this.done
    this.done = undefined
    done?.(status)
  }

  destroy (): void {
    this.socket.destroy()
  }
}

/** One client's way to publish: `send` takes the request's JSON body and tells the status (0: failed before any answer). */
interface Sender {
  readonly closed: boolean
  send: (body: string, done: (status: number) => void) => void
  destroy: () => void
}

/**
 * One publish in database mode: a statement, its own transaction, that writes what the
 * host's publish statement writes (src/shoutbox/shouts-repository.ts, `insertAnnounced`,
 * for one shout from the panel) — the shout, its stream event and its activity entry, into
 * copies of the site's tables (`COPIES`) — and sends a notice carrying the shout, on a
 * channel of its own (the host does not hear it). Prepared once a connection, as the
 * host's is (`prepared`, src/sdk/prepared.ts): planning it each time would charge the
 * limit what the host no longer pays.
 */
const INSERT_AND_NOTIFY = `with s as (insert into bench_shouts (message, username, date, author_id) values ($1, 'admin', $2, 1)
      returning id, message, username, date, (select slug from shoutbox_rooms where id = room_id) as room),
    e as (insert into bench_events (kind, shout, created_at)
      select 'shout-created', jsonb_build_object('id', s.id, 'message', s.message, 'username', s.username, 'date', s.date, 'room', s.room, 'replyTo', null), $2 from s
      returning id, shout),
    a as (insert into bench_activity (type, user_id, username, addon_id, details, created_at)
      select 'CREATED_SHOUT', 1, 'admin', 'shoutbox', jsonb_build_object('message', s.message, 'room', s.room), $2 from s)
  select pg_notify('bench_commits', json_build_object('kind', 'shout-created', 'eventIds', json_build_array(e.id),
    'events', json_build_array(json_build_object('id', e.id, 'kind', 'shout-created', 'shout', e.shout)))::text) from e`

/**
 * The copies the database mode writes to, of the site's tables, with their indexes (and the
 * shouts' room key). The activity copy's ids come from the site's own sequence (its id is
 * a serial, not an identity): harmless, nothing reads them.
 */
const COPIES = `create table bench_shouts (like shoutbox_shouts including all);
  alter table bench_shouts add foreign key (room_id) references shoutbox_rooms (id);
  create table bench_events (like shoutbox_events including all);
  create table bench_activity (like activity_logs including all)`

/** A PostgreSQL client whose tables are those of `schema` (the site's). */
function databaseClient ({ url, schema }: NonNullable<Job['database']>): pg.Client {
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`not a schema name this script sets: ${schema}`)
  return new pg.Client({ connectionString: url, options: `-c search_path=${schema}` })
}

/** A connection to PostgreSQL that publishes as a commit of one statement; 200 once committed. */
class DatabaseConnection implements Sender {
  private readonly client
  private readonly ready: Promise<unknown>
  closed = false

  constructor (database: NonNullable<Job['database']>) {
    this.client = databaseClient(database)
    this.client.on('error', () => { this.closed = true })
    this.ready = this.client.connect()
  }

  send (body: string, done: (status: number) => void): void {
    const { message } = JSON.parse(body) as { message: string }
    this.ready
      .then(() => this.client.query({ name: 'bench_publish', text: INSERT_AND_NOTIFY, values: [message, Date.now()] }))
      .then(() => done(200), () => {
        this.destroy()
        done(0)
      })
  }

  destroy (): void {
    this.closed = true
    void this.client.end().catch(() => {})
  }
}

/** For `job.database`: the table, and a connection that listens, as each host process's does. */
async function listenToCommits (database: NonNullable<Job['database']>): Promise<void> {
  const listener = databaseClient(database)
  // Should it fail, the publishes go on: the figures are what the publishes cost.
  listener.on('error', error => process.stderr.write(`the listening connection failed: ${error.message}\n`))
  await listener.connect()
  const { rows: [made] } = await listener.query<{ table: string | null }>("select to_regclass('bench_shouts')::text as table")
  if (made?.table === null) await listener.query(COPIES)
  await listener.query('listen bench_commits')
  listener.on('notification', () => {})
}

const { database } = job
// The database mode writes in the default room; a room would be silently ignored.
if (database !== undefined && job.room !== undefined) throw new Error('a room is not for the database mode: it writes in the default room')
if (database !== undefined) await listenToCommits(database)

/** Connections not waiting for an answer: each publish takes one, or opens one, as from that many clients. */
const idle: Sender[] = []
/**
 * In database mode, at most this many connections, as a host process's pool holds
 * (DATABASE_POOL_SIZE's default); a publish beyond them waits for one, as it would in the
 * host. One connection a publish in flight would pass PostgreSQL's 100 at 400 a second.
 */
const MAX_DATABASE_CONNECTIONS = 20
let databaseConnections = 0
/** Publishes waiting for a database connection, oldest first. */
const waiting: Array<(connection: Sender) => void> = []

/** A connection for the next publish now, or undefined when it must wait for one. */
function takeConnection (): Sender | undefined {
  let connection = idle.pop()
  // One that failed while it waited is not used again.
  while (connection?.closed === true) {
    if (database !== undefined) databaseConnections--
    connection = idle.pop()
  }
  if (connection !== undefined || database === undefined) return connection ?? new Connection()
  if (databaseConnections >= MAX_DATABASE_CONNECTIONS) return undefined
  databaseConnections++
  return new DatabaseConnection(database)
}

/** A connection done with its publish goes to the oldest waiting one, or back to the idle ones. */
function release (connection: Sender): void {
  if (connection.closed && database !== undefined) databaseConnections--
  const next = waiting.shift()
  if (next === undefined) {
    if (!connection.closed) idle.push(connection)
    return
  }
  const usable = connection.closed ? takeConnection() : connection
  if (usable === undefined) waiting.unshift(next)
  else next(usable)
}

function publish (n: number): void {
  if (inFlight >= MAX_IN_FLIGHT) {
    skipped++
    return
  }
  const body = JSON.stringify({ message: `${job.message} ${String(n).padStart(7, '0')}`, ...(job.room === undefined ? {} : { room: job.room }) })
  const sentAt = performance.now()
  inFlight++
  sent++
  const send = (connection: Sender): void => {
    const timeout = setTimeout(() => connection.destroy(), 10_000)
    connection.send(body, status => {
      clearTimeout(timeout)
      inFlight--
      latencies.push(performance.now() - sentAt)
      if (status >= 200 && status < 300) {
        ok++
        if (!stopped) okBeforeStop++
      } else {
        errors++
      }
      release(connection)
    })
  }
  const connection = takeConnection()
  if (connection === undefined) waiting.push(send)
  else send(connection)
}

const start = performance.now()
/** The same moment on the wall clock, which the windows are given in. */
const startEpoch = Date.now()
let next = 0
let timer: NodeJS.Timeout | undefined

/** Sends every publish that is due (more than one only if the timer fired late). */
function tick (): void {
  const now = performance.now()
  while (!stopped && start + next * interval <= now) {
    const due = startEpoch + next * interval
    if (job.windows !== undefined && !publishing(job.windows, due)) {
      // An idle window: on to the first publish due in the next busy one (always a later one).
      next = Math.max(next + 1, Math.ceil((nextPublishing(job.windows, due) - startEpoch) / interval))
      continue
    }
    maxLagMs = Math.max(maxLagMs, now - (start + next * interval))
    publish(next++)
  }
  if (now - start >= job.maxSeconds * 1000) stop()
  if (!stopped) timer = setTimeout(tick, Math.max(0, start + next * interval - performance.now()))
}

function stop (): void {
  if (stopped) return
  stopped = true
  stoppedAt = performance.now()
  if (timer !== undefined) clearTimeout(timer)
  const deadline = Date.now() + 15_000
  const finish = (): void => {
    if (inFlight > 0 && Date.now() < deadline) {
      setTimeout(finish, 20)
      return
    }
    const seconds = job.windows === undefined
      ? (stoppedAt - start) / 1000
      : publishingMs(job.windows, startEpoch, startEpoch + (stoppedAt - start)) / 1000
    const result: PublisherResult = {
      sent,
      okBeforeStop,
      ok,
      errors: errors + inFlight,
      skipped,
      seconds,
      achievedPerSecond: okBeforeStop / seconds,
      maxLagMs,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99)
    }
    process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0))
  }
  finish()
}

process.stdin.setEncoding('utf8')
process.stdin.on('data', (text: string) => { if (text.includes('stop')) stop() })
process.stdin.on('end', stop)
process.stdout.write('started\n')
tick()
