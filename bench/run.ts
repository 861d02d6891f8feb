/**
 * `npm run bench`: the production start measured against baselines run side by side.
 *
 *   npm run bench                          # on the embedded database
 *   DATABASE_URL=postgres://… npm run bench # on PostgreSQL (a schema of its own, dropped after)
 *   npm run bench -- --rounds 5 --seconds 10 --subscribers 2000
 *   npm run bench -- --only publish,stream   # parts: words, list, million, archive, busy, rooms, sources, alternating, cost, publish, webhooks, silenthook, stream, stream10k, reactions, presence, direct, listmemory, widgets, exports
 *   npm run bench -- --only busy --rates 20,100,400
 *   npm run bench -- --only stream10k        # --subscribers N: 2,000 for stream, 10,000 for stream10k
 *   npm run bench -- --only direct --conversations 100 --rounds 1   # --direct-rate N: direct messages a second (one a conversation by default)
 *
 * Every figure comes from real HTTP over loopback, with the load generator in its own
 * process: wrk (pinned to the other core) for the list in the list, busy, sources and rooms
 * parts when it is installed (bench/parts/wrk.ts), autocannon (bench/load.ts) otherwise.
 * The list part is described in bench/parts/list.ts. A million stored shouts are
 * compared with ten thousand: each comparison is
 * `--rounds` pairs of back-to-back runs of `--seconds`; the figures are medians, the
 * ratio the median of the pairs' ratios.
 *
 * archive: `GET /api/shoutbox/archive` (bench/archive.ts) on an installation holding a
 * million shouts: the first page, a page a million shouts back (`before` near the
 * oldest id) and a word search that one shout in 10,000 holds; `--seconds` each, once.
 *
 * busy: the list (maxShouts 50 of 10,000, 64 connections) while a separate process
 * publishes at each of `--rates` a second, evenly spaced. Each round is three
 * back-to-back runs — the idle list, the busy list, the bare server — in an order that
 * rotates from round to round; the ratios busy/idle, busy/bare and idle/bare are the
 * medians of the rounds' ratios. Each run also records the share of the machine's CPU
 * its hypervisor gave to other guests meanwhile (steal, from /proc/stat), which slows a
 * run from outside; the part prints it, and busy/idle over the rounds that lost little.
 *
 * rooms: 50 rooms of 1,000 shouts with 10 stream readers each (reading their room
 * alone); the last room's first page (what its widget loads) idle and while a separate
 * process publishes in the first room at each of `--rates`, in rounds whose order
 * alternates; busy / idle is the median of the rounds' ratios. The readers count the
 * events they hear: those of the other rooms should hear none.
 *
 * sources: where the busy list's loss comes from. For each of `--rates`, rounds of the
 * list idle and busy with the same publishes sent elsewhere: to a bare server that
 * answers them on the host's core (`sink`: the publishing client's share and the least
 * answering), straight to
 * PostgreSQL as commits of the rows a host's publish writes and a notice carrying the
 * shout (`database`: the commits' share; not on the embedded database, which runs in the
 * host), and through the host (`host`, as in busy); busy / idle for each, the medians of
 * the rounds.
 *
 * alternating: the sources part with the idle list inside each busy run: the publishes
 * go out in every other second only (busy seconds, the others idle), and a run's busy /
 * idle is the list's rate in its busy seconds over its rate in the idle seconds either
 * side (bench/windows.ts: the first fifth of each second and the load's first second left
 * out). A fourth source, `none`, publishes nothing: read the same way, it shows the
 * reading's own noise. One run a source a round, the order rotating; runs of at least
 * 20 s whatever `--seconds`; the summary again with 400 ms of each second left out.
 *
 * cost: for each of `--rates`, the CPU time a publish costs the host (user and system),
 * every PostgreSQL process and the publishing client, read from /proc over `--seconds`
 * of publishing with nothing else running: where the busy list's lost share goes.
 *
 * stream, stream10k: `--subscribers` event streams (spread over client processes of
 * 2,500 and over loopback source addresses, 20 streams each) receive a run of 20
 * publishes — 250 ms apart for stream, back to back for stream10k — from a host
 * restarted first, so its memory does not depend on the parts before. Delivery is
 * timed from each publish's answer, and from its sending (a server that held the answer
 * until its writes were done would look fast from the answer alone); reported with the
 * subscribers that missed any
 * event, how long the publishes waited for their answers, and the host's resident
 * memory before they connected, with them, and per subscriber. The baseline,
 * bench/bare-stream.ts, is a bare node:http server that answers a publish and writes its
 * event to every socket in one loop, nothing else: the floor this machine's socket
 * writes set. Each of `--rounds` rounds runs the host and the baseline back to back (the
 * order alternating), with the same subscribers and publishes; the figures are medians,
 * the ratios the medians of the rounds' ratios.
 *
 * reactions: as stream10k's 10,000 readers, with 20 publishes 250 ms apart, while 100
 * members send 100 reaction requests a second (bench/reactions.ts) to 10 shouts; each
 * round also runs the host without reactions, and the bare fan-out without them and under
 * the same reactions (counted in memory, their counts written once a second per shout),
 * in an order that rotates: delivery p99 host reacting / bare reacting, reacting / quiet,
 * and the `shout-reactions` events a stream reader heard, in all and at most in one second
 * (coalesced: at most one a second per shout, so 10).
 *
 * presence: as stream10k's 10,000 readers (`--subscribers`), which hear every room and
 * show the board's own (`showing`), as the widget's stream does, with 20 publishes 250 ms apart, while 100 readers a second join
 * and leave (bench/presence-churn.ts: each opens a stream of one of 3 rooms, the board's
 * own first, and closes it 2 s later; from 5 s before the publishes to their end); each
 * round also runs the quiet board (the same readers, nobody joining or leaving), the
 * order alternating, the host restarted before each. Every reader counts the `presence`
 * frames it hears (bench/presence.ts): a reader a second, in all and of one room (target
 * ≤ 0.2 a room: one frame per room per 5 s), and the closest two frames of one room at a reader;
 * delivery p99 churning / quiet, paired by round (target ≤ 1.2); the client processes'
 * CPU and core 1's (the load generator not the bottleneck) and the load average.
 *
 * webhooks: publishes at WEBHOOKS_RATE a second for `--seconds` × 2, with three active
 * webhooks (every `shout.created` to a receiver on loopback, bench/webhooks.ts) and with
 * the same hooks switched off, in `--rounds` rounds whose order alternates: the
 * publishes answered a second with hooks / without (the medians of the rounds' ratios),
 * their answer times, and how long after the last publish every delivery of the run had
 * arrived (and how many arrived twice).
 *
 * silenthook: a webhook on every `shout.created` to a healthy receiver, and beside it
 * another: to a receiver that accepts connections and never answers, or (the control,
 * the same outbox writes) to a second healthy one (bench/webhooks.ts); publishes at
 * SILENT_HOOK_RATE a second for `--seconds` × 4 beside each, in `--rounds` rounds whose
 * order alternates: the first hook's delays from each change to its delivery's arrival,
 * p50 / p99 / max (§23's target: p99 within 2 s beside the silent one), and the silent
 * receiver's connections (its tries).
 *
 * direct: 1,000 open conversations (`--conversations`), their 2,000 members' streams open,
 * and 20 room shouts 250 ms apart delivered to those streams, quietly and while each
 * conversation gets a direct message a second (`--direct-rate`, 1,000 a second in all), in
 * rounds of the same run: room delivery p99 direct / quiet (§27's target ≤ 1.2), the rate
 * reached, direct delivery to the other member's stream, the generator's CPU
 * (bench/direct.ts).
 *
 * listmemory: a million shouts with `maxShouts` unset (every shout in the list), one list
 * request; the host's resident memory before, at most while answering, 5 s and 30 s after.
 *
 * widgets: as stream10k, but the readers are widgets (bench/widget-requests.ts: what the
 * real widget sends for each kind of event, which a browser test holds it to) and the
 * publishes come 10 a second for 30 s. Reported besides: the widgets' requests per
 * publish per reader after their first load, and the server's CPU per publish.
 *
 * exports: six data exports at once of a 250,000-shout member, from three addresses
 * (bench/exports.ts): the host's resident memory idle and at most, statuses, time.
 */
import { randomBytes } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { WordFilter } from '../src/shoutbox/watched-words.js'
import { archiveSeedSql, measureArchive, measureSearches, measureSearchFlood, SEARCHES, wholeBoardSearchSql, type Requests } from './archive.js'
import type { PublisherResult } from './publisher.js'
import { prepareReactors, startReacting, type ReactingResult, type Reactors } from './reactions.js'
import type { SubscribersResult } from './subscribers.js'
import { CHURN_PER_SECOND, churnRooms, churning, presenceNotes, presenceReading, quietLead, type ChurnResult, type PresenceReading } from './presence.js'
import { percentile } from './stats.js'
import { windowedRates, type Reading, type Windows, type WindowedRates } from './windows.js'
import { startSilentReceiver, startWebhookReceiver } from './webhooks.js'
import { EXPORT_SHOUTS, measureExports } from './exports.js'
import {
  ADMIN, DATABASE_URL, PIN, cpuMs, described, firstLine, freePort, lines, load, log, median, node, openFilesLimit, residentMiB, sleep, startBareServer, type Load
} from './parts/processes.js'
import { listPart } from './parts/list.js'
import { directPart } from './direct.js'
import { Site } from './parts/site.js'
import { WRK_INSTALL, coreTicks, wrk, wrkAvailable } from './parts/wrk.js'

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    /** The stream parts' subscribers; by default 2,000 for stream and 10,000 for stream10k. */
    subscribers: { type: 'string' },
    /** The busy and cost parts' publishes a second. */
    rates: { type: 'string', default: '20,100,400' },
    /** The direct part's open conversations (two members' streams each), and its direct messages a second (one a conversation by default). */
    conversations: { type: 'string', default: '1000' },
    'direct-rate': { type: 'string' },
    only: { type: 'string', default: 'words,list,million,archive,busy,rooms,sources,alternating,cost,publish,webhooks,silenthook,stream,stream10k,reactions,presence,direct,listmemory,widgets,exports' }
  }
})
/** `--only list,publish`: the parts to run (words, list, million, archive, busy, rooms, sources, alternating, cost, publish, webhooks, silenthook, stream, stream10k, reactions, presence, direct, listmemory, widgets, exports); all by default. */
const PARTS = new Set(options.only.split(',').map(part => part.trim()))
const ROUNDS = Number(options.rounds)
const SECONDS = Number(options.seconds)
const SUBSCRIBERS = options.subscribers === undefined ? undefined : Number(options.subscribers)
const RATES = options.rates.split(',').map(Number)
if (RATES.some(rate => !(rate > 0 && rate <= 5000))) throw new Error('--rates: publishes a second, 1 to 5000, separated by commas')



/** Measurements of two servers, pair by pair, and the second's throughput over the first's. */
interface Comparison { first: Load[], second: Load[], ratio: number }

/**
 * Measures two servers alternately, `ROUNDS` pairs of back-to-back runs (which goes first
 * alternates), after a warm-up of each. The ratio is the median of the pairs' ratios: the
 * two runs of a pair are seconds apart, so a slow phase of this shared machine weighs on
 * both of them rather than on one side of the comparison.
 */
async function compare (label: string, urls: readonly [string, string]): Promise<Comparison> {
  for (const url of urls) await load({ url, connections: 50, durationSeconds: 1 })
  const result = { first: [] as Load[], second: [] as Load[] }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const which of round % 2 === 1 ? [0, 1] : [1, 0]) {
      const measured = await load({ url: urls[which]!, connections: 50, durationSeconds: SECONDS })
      ;(which === 0 ? result.first : result.second).push(measured)
    }
    log(`${label}, round ${round}: ${Math.round(result.first.at(-1)!.requestsPerSecond)} vs ${Math.round(result.second.at(-1)!.requestsPerSecond)} req/s`)
  }
  const ratio = median(result.first.map((first, i) => result.second[i]!.requestsPerSecond / first.requestsPerSecond))
  return { ...result, ratio }
}

/** A bare node:http server sending the bytes and headers the list of `site` sends now. */
async function startBare (label: string, site: Site): Promise<{ url: string, stop: () => Promise<void> }> {
  const sample = await fetch(`${await site.url()}/api/shoutbox/list`)
  const body = await sample.text()
  const headers: Record<string, string> = {}
  for (const name of ['content-type', 'etag', 'cache-control', 'x-content-type-options']) {
    const value = sample.headers.get(name)
    if (value !== null) headers[name] = value
  }
  const bare = await startBareServer(body, headers)
  log(`${label}: ${body.length} bytes a response (bare vs host)`)
  return { url: `http://127.0.0.1:${bare.port}/`, stop: async () => { bare.stop() } }
}


/** Whether wrk is installed: the list's load in the busy, sources and rooms parts (listLoad). */
const WRK_HERE = await wrkAvailable()

/**
 * The list's load in the busy, sources and rooms parts: wrk pinned to core 1 when it is
 * installed (autocannon cannot outrun a bare server: bench/parts/wrk.ts), else autocannon.
 * Runs that count answers by the wall clock (`bucketMs`: the alternating part) stay on autocannon.
 */
async function listLoad (job: { url: string, connections: number, durationSeconds: number }): Promise<Load> {
  if (!WRK_HERE) return load(job)
  const run = await wrk({ url: job.url, seconds: job.durationSeconds, connections: job.connections })
  return {
    requestsPerSecond: run.requestsPerSecond,
    total: run.requests,
    sent: run.requests,
    p50: run.p50Ms,
    p99: run.p99Ms,
    non2xx: run.badStatus,
    errors: run.errors,
    timeouts: 0,
    status2xx: run.requests - run.badStatus,
    stolen: run.stolen
  }
}

/** The busy part's list load: the connections the issue measured with. */
const BUSY_CONNECTIONS = 64
/**
 * A run that lost more than this share of the machine's CPU (%) to other guests of its
 * hypervisor (steal) was slowed by something outside it; the busy part names the rounds
 * that lost no more, and their busy / idle, beside the median of all of them.
 */
const QUIET_STEAL = 3
/** The publisher runs this long before the list is measured, so the measurement sees it steady. */
const BUSY_LEAD_IN_MS = 1000
/** About how long the publisher's process takes to start (node and tsx), for the alternating part's windows. */
const PUBLISHER_START_MS = 1500

interface BusyRate {
  readonly rate: number
  readonly idle: Load[]
  readonly busy: Load[]
  readonly bare: Load[]
  readonly publishers: PublisherResult[]
  readonly busyToIdle: number
  readonly busyToBare: number
  readonly idleToBare: number
}

/**
 * Where a busy run's publishes go:
 * - `host`: through the host, as a site's do;
 * - `sink`: to a bare node:http server on the host's core that answers each at once, the
 *   host not involved: what the publishing client and the least answering cost;
 * - `database`: straight to PostgreSQL, a commit each of what the host's publish commits
 *   (the shout, its stream event and activity entry, in copies of the site's tables with
 *   their indexes, and a notice carrying the shout, heard by a listening connection), the
 *   host not involved: what the commits cost.
 */
type PublishSource = 'host' | 'sink' | 'database'

/** A bare server answering every request `{"result":"ok"}`, on the servers' core. */
async function startSink (): Promise<{ url: string, stop: () => void }> {
  const sink = await startBareServer('{"result":"ok"}', { 'content-type': 'application/json; charset=utf-8' })
  return { url: `http://127.0.0.1:${sink.port}/api/panel/shoutbox`, stop: sink.stop }
}

interface BusyListOptions {
  /** Where the publishes go; the host by default. */
  readonly source?: PublishSource
  /** The list measured; the default room's by default. */
  readonly listPath?: string
  /** The room the publishes go to; the default room when absent. */
  readonly room?: string
  /** Publish in every other window of this length only (the alternating part). */
  readonly windowMs?: number
  /** How long the list is measured; `--seconds` by default. */
  readonly seconds?: number
}

/**
 * The windows of a run that starts now: they begin after `leadMs` (by default once the
 * publisher has started and run its lead-in), on a whole multiple of the window, which
 * the load generator's buckets (epoch milliseconds / BUCKET_MS) then fall on.
 */
function windowsFromNow (windowMs: number, leadMs = PUBLISHER_START_MS + BUSY_LEAD_IN_MS): Windows {
  return { anchor: Math.ceil((Date.now() + leadMs) / windowMs) * windowMs, windowMs }
}

/**
 * One run of the list while a separate process (bench/publisher.ts, on the load
 * generator's core) publishes `rate` times a second to `source`: it starts, publishes
 * for a lead-in, goes on through the whole measurement, and stops when it ends. With
 * `windowMs`, it publishes only in every other window of that length after the lead-in
 * (bench/windows.ts), and the list's answers are counted by when they came.
 */
async function busyList (site: Site, rate: number, round: number, { source = 'host', listPath = '/api/shoutbox/list', room, windowMs, seconds = SECONDS }: BusyListOptions = {}): Promise<{ load: Load, publisher: PublisherResult, windows?: Windows }> {
  const siteUrl = await site.url()
  const windows = windowMs === undefined ? undefined : windowsFromNow(windowMs)
  // Nothing that can throw between starting the sink and the `try` that stops it.
  const sink = source === 'sink' ? await startSink() : undefined
  const publisher = node(['--import', 'tsx', 'bench/publisher.ts', JSON.stringify({
    url: sink?.url ?? `${siteUrl}/api/panel/shoutbox`,
    ...(source === 'database' ? { database: { url: DATABASE_URL, schema: site.schema } } : {}),
    cookie: site.cookie,
    ...(room === undefined ? {} : { room }),
    ...(windows === undefined ? {} : { windows }),
    rate,
    // A bound of its own, should this process fail to stop it.
    maxSeconds: seconds + BUSY_LEAD_IN_MS / 1000 + 30,
    // About as long as the seeded shouts (the list's bytes stay comparable with the bare server's).
    message: `Busy shout, ${rate}/s, round ${round}, as long as a real one:`
  })], {}, 1)
  const next = lines(publisher)
  try {
    if (await next() !== 'started') throw new Error('the publisher did not start')
    await sleep(BUSY_LEAD_IN_MS)
    const job = { url: `${siteUrl}${listPath}`, connections: BUSY_CONNECTIONS, durationSeconds: seconds }
    const measured = windows === undefined ? await listLoad(job) : await load({ ...job, bucketMs: BUCKET_MS })
    publisher.stdin!.write('stop\n')
    const result = JSON.parse(await next()) as PublisherResult
    // Its last publishes answered, the host is given a moment before the next run.
    await sleep(500)
    return { load: measured, publisher: result, ...(windows === undefined ? {} : { windows }) }
  } finally {
    publisher.kill('SIGTERM')
    sink?.stop()
  }
}

/** The busy parts' list: 10,000 stored, maxShouts 50. Its URL. */
async function busyBoardList (site: Site): Promise<string> {
  await site.seedTo(10_000)
  await site.api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 })
  return `${await site.url()}/api/shoutbox/list`
}

interface SourcesRate {
  readonly rate: number
  /** The idle list's runs, and the busy list's by where the publishes went. */
  readonly runs: Record<'idle' | PublishSource, Load[]>
  /** Median over the rounds of each source's busy / idle. */
  readonly toIdle: Partial<Record<PublishSource, number>>
}

/**
 * The host against the machine's limit (sink × database), from each source's busy / idle
 * by round (one index a round): of the sources' medians, and each round's own with their
 * median (runs with nothing to read left out). Used by the sources and the alternating parts.
 */
function againstLimit (shares: Record<'sink' | 'database' | 'host', readonly number[]>): { ofMedians: number, byRound: number[], medianByRound: number } {
  const byRound = shares.host.map((host, round) => host / (shares.sink[round]! * shares.database[round]!))
  return {
    ofMedians: finiteMedian(shares.host) / (finiteMedian(shares.sink) * finiteMedian(shares.database)),
    byRound,
    medianByRound: finiteMedian(byRound)
  }
}

/** The median of the values that are numbers: a run with nothing to read (NaN) is left out rather than sorted in. */
const finiteMedian = (values: readonly number[]): number => median(values.filter(Number.isFinite))

/** Round `round`'s busy / idle with the publishes going to `source` (runs of one round share an index). */
function busyShare (runs: SourcesRate['runs'], source: PublishSource, round: number): number {
  return runs[source][round]!.requestsPerSecond / runs.idle[round]!.requestsPerSecond
}

/**
 * The sources part: where the busy list's loss comes from. For each rate, `ROUNDS` rounds
 * of back-to-back runs of the list — idle, and busy with the publishes going to each
 * source (see PublishSource; `database` on PostgreSQL only, the embedded one being in
 * the host) — in an order that rotates from round to round. Each ratio pairs runs of one
 * round; with four runs a round, give a multiple of four rounds for every run to take
 * every place equally often.
 */
async function busySources (site: Site): Promise<SourcesRate[]> {
  const listUrl = await busyBoardList(site)
  const sources: PublishSource[] = DATABASE_URL === undefined ? ['sink', 'host'] : ['sink', 'database', 'host']
  const results: SourcesRate[] = []
  await listLoad({ url: listUrl, connections: BUSY_CONNECTIONS, durationSeconds: 1 })
  for (const rate of RATES) {
    const runs: SourcesRate['runs'] = { idle: [], sink: [], database: [], host: [] }
    const kinds = ['idle', ...sources] as const
    for (let round = 1; round <= ROUNDS; round++) {
      const order = kinds.map((_, i) => kinds[(i + round - 1) % kinds.length]!)
      const achieved: string[] = []
      for (const which of order) {
        if (which === 'idle') {
          runs.idle.push(await listLoad({ url: listUrl, connections: BUSY_CONNECTIONS, durationSeconds: SECONDS }))
          continue
        }
        const { load: measured, publisher } = await busyList(site, rate, round, { source: which })
        if (publisher.errors > 0) throw new Error(`sources, ${rate} publishes/s to ${which}: ${publisher.errors} publishes failed`)
        runs[which].push(measured)
        achieved.push(`${which} ${publisher.achievedPerSecond.toFixed(1)}`)
      }
      log(`sources, ${rate} publishes/s, round ${round} (${order.join(', ')}): ` +
        kinds.map(which => described(which, runs[which].at(-1)!)).join(', ') +
        ` req/s; publishes/s achieved: ${achieved.join(', ')}`)
    }
    const toIdle = Object.fromEntries(sources.map(source => [source, median(runs[source].map((_, round) => busyShare(runs, source, round)))]))
    results.push({ rate, runs, toIdle })
  }
  return results
}

/** The alternating part's windows: busy and idle in turn, this long each. */
const WINDOW_MS = 1000
/** The alternating part's runs: long enough for eight pairs or so, whatever `--seconds`. */
const ALTERNATING_SECONDS = Math.max(SECONDS, 20)
/** How the alternating part reads a run's answers: in buckets of 100 ms, each window's first fifth and the load's first second left out. */
const READING: Reading = { bucketMs: 100, settleMs: 200, warmUpMs: 1000 }
/** The load generator counts the list's answers in buckets this long (a divisor of WINDOW_MS). */
const BUCKET_MS = READING.bucketMs

/** Where the alternating part's publishes go: a source of the sources part, or nowhere (`none`, the reading's own check). */
type AlternatingSource = PublishSource | 'none'

interface AlternatingRate {
  readonly rate: number
  /** Each source's runs, in round order: the list's rates in its busy windows and the idle ones beside them. */
  readonly runs: Partial<Record<AlternatingSource, WindowedRates[]>>
  /** The same runs read with twice the settling (`SETTLED_LONGER`). */
  readonly settledLonger: Partial<Record<AlternatingSource, WindowedRates[]>>
}

/** The reading with twice the settling: a share that moved with it would say the windows spill into each other. */
const SETTLED_LONGER: Reading = { ...READING, settleMs: 2 * READING.settleMs }

/** A run's busy / idle. */
const windowShare = (run: WindowedRates): number => run.busy / run.idle

/**
 * The alternating part: the sources part with the idle list measured inside each busy run.
 * For each rate, `ROUNDS` rounds of one run a source (none, sink, database on PostgreSQL,
 * host; the order rotating), each run publishing in every other second only
 * (bench/windows.ts); a run's busy / idle is the list's rate in its busy seconds over its
 * rate in the idle seconds either side. The sources part pairs runs of one round, a
 * minute apart; this pairs seconds of one run, so the machine's slow spells — the idle
 * list moved by a quarter between runs of one round — weigh on both sides alike. The
 * `none` runs publish nothing: read the same way, they should give 1.00.
 */
async function alternatingSources (site: Site): Promise<AlternatingRate[]> {
  const listUrl = await busyBoardList(site)
  const sources: AlternatingSource[] = DATABASE_URL === undefined ? ['none', 'sink', 'host'] : ['none', 'sink', 'database', 'host']
  const results: AlternatingRate[] = []
  await load({ url: listUrl, connections: BUSY_CONNECTIONS, durationSeconds: 1 })
  for (const rate of RATES) {
    const runs: AlternatingRate['runs'] = {}
    const settledLonger: AlternatingRate['settledLonger'] = {}
    for (let round = 1; round <= ROUNDS; round++) {
      const order = sources.map((_, i) => sources[(i + round - 1) % sources.length]!)
      for (const which of order) {
        let measured: Load
        let windows: Windows
        let published = ''
        if (which === 'none') {
          // No publisher to wait for: the windows start as the load does, which leaves out its own first second.
          windows = windowsFromNow(WINDOW_MS, 0)
          measured = await load({ url: listUrl, connections: BUSY_CONNECTIONS, durationSeconds: ALTERNATING_SECONDS, bucketMs: BUCKET_MS })
        } else {
          const run = await busyList(site, rate, round, { source: which, windowMs: WINDOW_MS, seconds: ALTERNATING_SECONDS })
          const { publisher } = run
          if (publisher.errors > 0) throw new Error(`alternating, ${rate} publishes/s to ${which}: ${publisher.errors} publishes failed`)
          measured = run.load
          windows = run.windows!
          published = `; ${publisher.achievedPerSecond.toFixed(1)} publishes/s achieved, answered in ${Math.round(publisher.p50)} / ${Math.round(publisher.p99)} ms, ` +
            `at most ${Math.round(publisher.maxLagMs)} ms late, ${publisher.skipped} not sent`
        }
        const rates = windowedRates(measured.buckets!, windows, READING)
        const longer = windowedRates(measured.buckets!, windows, SETTLED_LONGER)
        ;(runs[which] ??= []).push(rates)
        ;(settledLonger[which] ??= []).push(longer)
        log(`alternating, ${rate} publishes/s, round ${round}, ${which}: ${Math.round(rates.busy)} / ${Math.round(rates.idle)} = ${windowShare(rates).toFixed(3)} ` +
          `(${rates.pairs} busy windows; ${windowShare(longer).toFixed(3)} leaving out ${SETTLED_LONGER.settleMs} ms of each window); ` +
          `${failures([measured])} list failures, ${Number.isNaN(measured.stolen) ? '?' : measured.stolen.toFixed(1)} % stolen${published}`)
      }
    }
    results.push({ rate, runs, settledLonger })
  }
  return results
}

/**
 * The busy part: for each rate, `ROUNDS` rounds of three back-to-back runs — the idle
 * list, the list with publishes arriving, and a bare server sending the idle list's
 * bytes — the order rotating from round to round, after a warm-up of the idle list and
 * the bare server.
 */
async function busyBoard (site: Site): Promise<BusyRate[]> {
  const listUrl = await busyBoardList(site)
  const results: BusyRate[] = []
  for (const rate of RATES) {
    const bare = await startBare(`busy, ${rate} publishes/s`, site)
    const runs = { idle: [] as Load[], busy: [] as Load[], bare: [] as Load[], publishers: [] as PublisherResult[] }
    try {
      for (const url of [listUrl, bare.url]) await listLoad({ url, connections: BUSY_CONNECTIONS, durationSeconds: 1 })
      for (let round = 1; round <= ROUNDS; round++) {
        const order = (['idle', 'busy', 'bare'] as const).map((_, i, all) => all[(i + round - 1) % 3]!)
        for (const which of order) {
          if (which === 'busy') {
            const { load: measured, publisher } = await busyList(site, rate, round)
            runs.busy.push(measured)
            runs.publishers.push(publisher)
          } else {
            runs[which].push(await listLoad({ url: which === 'idle' ? listUrl : bare.url, connections: BUSY_CONNECTIONS, durationSeconds: SECONDS }))
          }
        }
        const publisher = runs.publishers.at(-1)!
        const run = (which: 'idle' | 'busy' | 'bare'): string => described(which, runs[which].at(-1)!)
        log(`busy, ${rate} publishes/s, round ${round} (${order.join(', ')}): ${run('idle')}, ${run('busy')}, ${run('bare')} req/s; ` +
          `${publisher.achievedPerSecond.toFixed(1)} publishes/s (at most ${Math.round(publisher.maxLagMs)} ms late), ${publisher.errors} errors, ${publisher.skipped} not sent`)
      }
    } finally {
      await bare.stop()
    }
    const ratio = (a: Load[], b: Load[]): number => median(a.map((x, i) => x.requestsPerSecond / b[i]!.requestsPerSecond))
    results.push({
      rate,
      ...runs,
      busyToIdle: ratio(runs.busy, runs.idle),
      busyToBare: ratio(runs.busy, runs.bare),
      idleToBare: ratio(runs.idle, runs.bare)
    })
  }
  return results
}

/** The reactions part: reaction requests a second, the shouts they go to, the members sending them (each well under 30 a minute). */
const REACTIONS_PER_SECOND = 100
const REACTION_SHOUTS = 10
const REACTING_MEMBERS = 100

/** The rooms part: how many rooms, readers and shouts in each. */
const ROOMS = 50
const READERS_PER_ROOM = 10
const SHOUTS_PER_ROOM = 1000
/** The publishes' room and the room whose page is measured. */
const BUSY_ROOM = 'room-01'
const QUIET_ROOM = 'room-50'

interface RoomsRate {
  readonly rate: number
  readonly idle: Load[]
  readonly busy: Load[]
  readonly publishers: PublisherResult[]
  readonly busyToIdle: number
}

interface RoomsResult {
  readonly rates: RoomsRate[]
  /** Events the readers heard: of the busy room, and of every other (which should be none). */
  readonly heardInBusyRoom: number
  readonly heardElsewhere: number
  readonly readers: number
}

/**
 * The rooms part: 50 rooms of 1,000 shouts, 10 stream readers in each (each reading its
 * room alone), and rounds of the first page of the last room (`/api/shoutbox/latest?room=`,
 * what a widget loads) measured idle and while a separate process publishes in the first
 * room at each of `--rates`; busy / idle is the median of the rounds' ratios. The readers
 * count what they hear: a reader of another room should hear nothing of the publishes.
 */
async function roomsBoard (site: Site): Promise<RoomsResult> {
  const slugs = Array.from({ length: ROOMS - 1 }, (_, i) => `room-${String(i + 1).padStart(2, '0')}`)
  const known = new Set(((await site.api('GET', '/api/panel/shoutbox/rooms')).json.rooms as Array<{ slug: string }>).map(room => room.slug))
  for (const slug of [...slugs, QUIET_ROOM]) {
    if (known.has(slug)) continue
    const made = await site.api('POST', '/api/panel/shoutbox/rooms', { slug, name: `Room ${slug.slice(5)}` })
    if (made.status !== 200) throw new Error(`could not make ${slug}: ${JSON.stringify(made.json)}`)
  }
  await site.offline(async () => {
    const rooms = await site.sql<{ id: number, slug: string, n: number }>(`select r.id, r.slug, (select count(*)::int from shoutbox_shouts s where s.room_id = r.id) as n
      from shoutbox_rooms r where r.slug like 'room-%'`)
    const empty = rooms.filter(room => room.n === 0)
    if (empty.length === 0) return
    log(`seeding ${SHOUTS_PER_ROOM} shouts in each of ${empty.length} rooms`)
    await site.sql(`insert into shoutbox_shouts (message, username, date, room_id)
      select 'Seeded shout number ' || lpad(g::text, 7, '0') || ' of its room, about as long as a real one.', 'admin', ${Date.now()} + g, r.id
      from unnest(array[${empty.map(room => room.id).join(',')}]::int[]) as r(id), generate_series(1, ${SHOUTS_PER_ROOM}) as g`)
    await site.sql('vacuum analyze shoutbox_shouts')
    await site.sql('checkpoint')
  })
  await site.api('PUT', '/api/panel/shoutbox/config', { maxMessageLength: 500 })
  const siteUrl = await site.url()
  // The readers, in this process: each counts the shout events it hears.
  const heard = new Map<string, number>()
  const readers: http.ClientRequest[] = []
  for (const slug of [...slugs, QUIET_ROOM]) {
    for (let i = 0; i < READERS_PER_ROOM; i++) {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(`${siteUrl}/api/shoutbox/stream?rooms=${slug}`, { agent: false, headers: { accept: 'text/event-stream' } }, response => {
          if (response.statusCode !== 200) reject(new Error(`a reader of ${slug} was refused: ${response.statusCode}`))
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => {
            const events = chunk.split('\nevent: shout-created\n').length - 1
            if (events > 0) heard.set(slug, (heard.get(slug) ?? 0) + events)
          })
          resolve()
        })
        request.on('error', reject)
        readers.push(request)
      })
    }
  }
  log(`${readers.length} readers in ${ROOMS} rooms`)
  const path = `/api/shoutbox/latest?room=${QUIET_ROOM}&limit=50`
  const rates: RoomsRate[] = []
  try {
    await listLoad({ url: `${siteUrl}${path}`, connections: BUSY_CONNECTIONS, durationSeconds: 1 })
    for (const rate of RATES) {
      const runs = { idle: [] as Load[], busy: [] as Load[], publishers: [] as PublisherResult[] }
      for (let round = 1; round <= ROUNDS; round++) {
        const order = round % 2 === 1 ? ['idle', 'busy'] as const : ['busy', 'idle'] as const
        for (const which of order) {
          if (which === 'busy') {
            const { load: measured, publisher } = await busyList(site, rate, round, { listPath: path, room: BUSY_ROOM })
            runs.busy.push(measured)
            runs.publishers.push(publisher)
          } else {
            runs.idle.push(await listLoad({ url: `${siteUrl}${path}`, connections: BUSY_CONNECTIONS, durationSeconds: SECONDS }))
          }
        }
        log(`rooms, ${rate} publishes/s in ${BUSY_ROOM}, round ${round}: ${described('idle', runs.idle.at(-1)!)}, ${described('busy', runs.busy.at(-1)!)} req/s of ${QUIET_ROOM}'s page`)
      }
      rates.push({ rate, ...runs, busyToIdle: median(runs.busy.map((busy, i) => busy.requestsPerSecond / runs.idle[i]!.requestsPerSecond)) })
    }
    // The last events reach the readers.
    await sleep(1000)
  } finally {
    for (const request of readers) request.destroy()
  }
  const heardInBusyRoom = heard.get(BUSY_ROOM) ?? 0
  return { rates, heardInBusyRoom, heardElsewhere: [...heard.entries()].filter(([slug]) => slug !== BUSY_ROOM).reduce((sum, [, n]) => sum + n, 0), readers: readers.length }
}


/** The PostgreSQL server's processes (every backend, the WAL writer, …), for their CPU time. */
async function postgresPids (): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const comm = await fs.readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '')
    if (comm.startsWith('postgres')) pids.push(Number(entry))
  }
  return pids
}

interface PublishCost {
  readonly rate: number
  readonly published: number
  /** CPU per publish, ms. */
  readonly hostUser: number
  readonly hostSystem: number
  readonly postgres: number
  readonly publisher: number
}

/**
 * cost: where a publish's CPU goes. With nothing else running, a separate process
 * publishes at `rate` a second; over `--seconds` after a lead-in, the CPU time of the
 * host, of every PostgreSQL process and of the publisher is read from /proc and divided
 * by the publishes answered. The busy list shares the host's core with the host's part.
 */
async function publishCost (site: Site, rate: number): Promise<PublishCost> {
  const publisher = node(['--import', 'tsx', 'bench/publisher.ts', JSON.stringify({
    url: `${await site.url()}/api/panel/shoutbox`, cookie: site.cookie, rate, maxSeconds: SECONDS + 32, message: `Costed shout, ${rate}/s, as long as a real one would be:`
  })], {}, 1)
  const next = lines(publisher)
  try {
    if (await next() !== 'started') throw new Error('the publisher did not start')
    await sleep(2000)
    const postgres = DATABASE_URL === undefined ? [] : await postgresPids()
    const read = async (): Promise<{ host: { user: number, system: number }, postgres: number, publisher: number, at: number }> => {
      const [host, own, database] = await Promise.all([cpuMs(site.child!.pid!), cpuMs(publisher.pid!), Promise.all(postgres.map(cpuMs))])
      return { host, postgres: database.reduce((sum, each) => sum + each.user + each.system, 0), publisher: own.user + own.system, at: performance.now() }
    }
    const before = await read()
    await sleep(SECONDS * 1000)
    const after = await read()
    publisher.stdin!.write('stop\n')
    const result = JSON.parse(await next()) as PublisherResult
    if (result.errors > 0) throw new Error(`cost, ${rate} publishes/s: ${result.errors} publishes failed`)
    // Evenly spaced and all answered: the publishes of the window are its length at the rate achieved.
    // (Counting rows would stop the embedded database's host, which owns its files.)
    const published = result.achievedPerSecond * (after.at - before.at) / 1000
    const per = (ms: number): number => ms / published
    return {
      rate,
      published,
      hostUser: per(after.host.user - before.host.user),
      hostSystem: per(after.host.system - before.host.system),
      postgres: per(after.postgres - before.postgres),
      publisher: per(after.publisher - before.publisher)
    }
  } finally {
    publisher.kill('SIGTERM')
  }
}


/** The webhooks part's rate: the publishes a second its acceptance names. */
const WEBHOOKS_RATE = 500
/**
 * The silenthook part's rate: a busy board's, which one hook keeps up with on a loaded
 * machine too (at WEBHOOKS_RATE the hook alone is what decides, not the silent one).
 */
const SILENT_HOOK_RATE = 100

/** Publishes at `rate` a second for `seconds` from a process of its own (bench/publisher.ts); its figures once all are answered. */
async function publishFor (site: Site, rate: number, seconds: number, message: string): Promise<PublisherResult> {
  const publisher = node(['--import', 'tsx', 'bench/publisher.ts', JSON.stringify({
    url: `${await site.url()}/api/panel/shoutbox`, cookie: site.cookie, rate, maxSeconds: seconds + 30, message
  })], {}, 1)
  const next = lines(publisher)
  try {
    if (await next() !== 'started') throw new Error('the publisher did not start')
    await sleep(seconds * 1000)
    publisher.stdin!.write('stop\n')
    return JSON.parse(await next()) as PublisherResult
  } finally {
    publisher.kill('SIGTERM')
  }
}

/** Waits until `done` holds (checked every 50 ms), at most `withinMs`; whether it did. */
async function eventually (done: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs
  while (!done()) {
    if (performance.now() > deadline) return false
    await sleep(50)
  }
  return true
}

async function publishLoad (site: Site): Promise<{ load: Load, stored: number, lost: number, logged: number }> {
  const before = await site.count('shoutbox_shouts')
  const logsBefore = await site.count('activity_logs', "type = 'CREATED_SHOUT'")
  const result = await load({
    url: `${await site.url()}/api/panel/shoutbox`,
    connections: 32,
    durationSeconds: SECONDS * 2,
    method: 'POST',
    headers: { cookie: site.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'A benchmark shout' })
  })
  // Requests still in flight when the load stopped may commit a moment later.
  await new Promise(resolve => setTimeout(resolve, 1000))
  const stored = await site.count('shoutbox_shouts') - before
  const logged = await site.count('activity_logs', "type = 'CREATED_SHOUT'") - logsBefore
  return { load: result, stored, logged, lost: Math.max(0, result.status2xx - stored) }
}

/** Subscribers a client process holds, and streams a loopback source address opens. */
const SUBSCRIBERS_PER_PROCESS = 2500
const STREAMS_PER_ADDRESS = 20
const FAN_OUT_PUBLISHES = 20
/** The widgets part: publishes a second, for this many seconds. */
const WIDGETS_RATE = 10
const WIDGETS_SECONDS = 30

interface FanOut {
  readonly subscribers: number
  readonly connected: number
  readonly connectSeconds: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** The same delays, from each publish's sending rather than its answer. */
  readonly sentP50: number
  readonly sentP99: number
  readonly delivered: number
  readonly expected: number
  /** Subscribers (connected or not) that did not receive every publish of the run. */
  readonly missed: number
  readonly duplicates: number
  readonly closed: number
  /** How long a publish of the run waited for its answer, ms. */
  readonly answerP50: number
  readonly answerMax: number
  readonly idleMiB: number
  readonly connectedMiB: number
  readonly rssMiB: number
  /** (rssMiB − idleMiB) per connected subscriber. */
  readonly perSubscriberKiB: number
  /** The publishes of the run. */
  readonly publishes: number
  /** As widgets: first loads sent, every later request sent, and those that failed. */
  readonly firstLoads: number
  readonly requests: number
  readonly requestFailures: number
  /** The server's CPU (user + system) over the publishing window, ms a publish. */
  readonly cpuPerPublishMs: number
  /** With `countEvent`: those events the readers heard from the background's start to its stop (or over the publishing), and the clients' CPU meanwhile. */
  readonly presence?: PresenceReading
}

/** Load that runs while a fan-out's publishes are sent and delivered (the reactions and presence parts'). */
interface Background {
  /** Awaited before the first publish (a load may need a lead-in). */
  start (): void | Promise<void>
  stop (): Promise<void>
}

/** What the stream parts measure: the host, or the bare fan-out (bench/bare-stream.ts). */
interface StreamTarget {
  readonly pid: number
  readonly streamUrl: string
  /** Where a widget's requests go: the table's paths are appended to it. */
  readonly baseUrl: string
  publish (message: string): Promise<void>
  rssMiB (): Promise<number>
}

function hostTarget (site: Site, url: string): StreamTarget {
  return {
    pid: site.child!.pid!,
    streamUrl: `${url}/api/shoutbox/stream`,
    baseUrl: url,
    async publish (message) {
      const response = await site.api('POST', '/api/panel/shoutbox', { message })
      if (response.status !== 200) throw new Error(`publish failed: ${JSON.stringify(response.json)}`)
    },
    rssMiB: () => site.rssMiB()
  }
}

/** The bare fan-out on the servers' core, run as `measure` asks, then stopped. */
async function withBareStream<T> (measure: (target: StreamTarget) => Promise<T>): Promise<T> {
  const port = await freePort()
  const child = node(['--import', 'tsx', 'bench/bare-stream.ts', String(port)], {}, 0)
  try {
    await firstLine(child)
    return await measure({
      pid: child.pid!,
      streamUrl: `http://127.0.0.1:${port}/stream`,
      baseUrl: `http://127.0.0.1:${port}`,
      async publish (message) {
        const response = await fetch(`http://127.0.0.1:${port}/publish`, { method: 'POST', body: JSON.stringify({ message }) })
        await response.text()
        if (response.status !== 200) throw new Error('the bare fan-out refused a publish')
      },
      rssMiB: () => residentMiB(child.pid!)
    })
  } finally {
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
}

/**
 * `subscribers` streams of `target`, then `publishes` publishes, one every `gapMs` (0:
 * each sent once the one before is answered). Each event's delay runs from its
 * publish's answer to its arrival; a subscriber that misses one is counted. With
 * `widgets`, each subscriber also sends what the real widget sends for each event
 * (bench/widget-requests.ts).
 */
async function fanOut (target: StreamTarget, subscribers: number, gapMs: number, publishes = FAN_OUT_PUBLISHES, widgets = false, background?: Background, countEvent?: string): Promise<FanOut> {
  const limit = await openFilesLimit(target.pid)
  if (limit < subscribers + 256) {
    throw new Error(`the server may open ${limit} files, too few for ${subscribers} streams: raise the hard limit (ulimit -Hn) or pass a smaller --subscribers`)
  }
  const url = target.streamUrl
  const marker = `fan-out-${randomBytes(3).toString('hex')}`
  const idleMiB = await target.rssMiB()
  const groups: Array<{ child: ChildProcess, next: () => Promise<string> }> = []
  try {
    const connecting = Date.now()
    for (let first = 0; first < subscribers; first += SUBSCRIBERS_PER_PROCESS) {
      const child = node(['--import', 'tsx', 'bench/subscribers.ts', JSON.stringify({
        url, first, count: Math.min(SUBSCRIBERS_PER_PROCESS, subscribers - first), perAddress: STREAMS_PER_ADDRESS, connecting: 32, marker, publishes,
        ...(widgets ? { widget: { base: target.baseUrl } } : {}),
        ...(countEvent === undefined ? {} : { countEvent })
      })], {}, 1)
      groups.push({ child, next: lines(child) })
    }
    const statuses = await Promise.all(groups.map(async group => JSON.parse(await group.next()) as { connected: number, failed: number }))
    const connected = statuses.reduce((sum, status) => sum + status.connected, 0)
    const connectSeconds = (Date.now() - connecting) / 1000
    log(`${connected} of ${subscribers} subscribers connected in ${connectSeconds.toFixed(1)} s from ${Math.ceil(subscribers / STREAMS_PER_ADDRESS)} loopback addresses, ${groups.length} client processes`)
    await sleep(1000)
    const connectedMiB = await target.rssMiB()

    const sentAt: number[] = []
    const answeredAt: number[] = []
    const answerMs: number[] = []
    const countFrom = Date.now()
    const clientsBefore = await Promise.all(groups.map(group => cpuMs(group.child.pid!)))
    const core1Before = await coreTicks(1)
    await background?.start()
    const cpuBefore = await cpuMs(target.pid)
    const publishing = Date.now()
    for (let i = 0; i < publishes; i++) {
      // On a schedule: publish i is due gapMs × i after the first, however long the one before took.
      if (gapMs > 0) await sleep(Math.max(0, publishing + i * gapMs - Date.now()))
      sentAt.push(Date.now())
      await target.publish(`${marker} ${i}`)
      answeredAt.push(Date.now())
      answerMs.push(answeredAt[i]! - sentAt[i]!)
    }
    // Until every connected subscriber has every event, or 10 s have passed.
    const expected = connected * publishes
    const deadline = Date.now() + 10_000
    for (;;) {
      await sleep(250)
      let received = 0
      for (const group of groups) {
        group.child.stdin!.write('count\n')
        received += (JSON.parse(await group.next()) as { received: number }).received
      }
      if (received >= expected || Date.now() > deadline) break
    }
    await sleep(500)
    await background?.stop()
    const countTo = Date.now()
    const clientsAfter = await Promise.all(groups.map(group => cpuMs(group.child.pid!)))
    const core1After = await coreTicks(1)
    const cpuAfter = await cpuMs(target.pid)
    const rssMiB = await target.rssMiB()
    const results = await Promise.all(groups.map(async group => {
      group.child.stdin!.write(`done ${JSON.stringify({ sentAt, answeredAt, window: [countFrom, countTo] })}\n`)
      return JSON.parse(await group.next()) as SubscribersResult
    }))
    const latencies = results.flatMap(result => result.latencies)
    const fromSent = results.flatMap(result => result.fromSent)
    const total = (key: 'missed' | 'duplicates' | 'closed' | 'firstLoads' | 'requests' | 'requestFailures'): number => results.reduce((sum, result) => sum + result[key], 0)
    return {
      subscribers,
      connected,
      connectSeconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: percentile(latencies, 100),
      sentP50: percentile(fromSent, 50),
      sentP99: percentile(fromSent, 99),
      delivered: latencies.length,
      expected: subscribers * publishes,
      missed: total('missed'),
      duplicates: total('duplicates'),
      closed: total('closed'),
      answerP50: percentile(answerMs, 50),
      answerMax: percentile(answerMs, 100),
      idleMiB,
      connectedMiB,
      rssMiB,
      perSubscriberKiB: (rssMiB - idleMiB) * 1024 / connected,
      publishes,
      firstLoads: total('firstLoads'),
      requests: total('requests'),
      requestFailures: total('requestFailures'),
      cpuPerPublishMs: (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / publishes,
      ...(countEvent === undefined ? {} : { presence: presenceReading(results, countTo - countFrom, clientsBefore, clientsAfter, core1Before, core1After) })
    }
  } finally {
    for (const { child } of groups) if (child.exitCode === null) child.kill('SIGTERM')
    // The host notices the closed streams before the next part.
    await sleep(1000)
  }
}

// ---------------------------------------------------------------- watched words

/**
 * The watched-word check of one post, in this process: 1,000 patterns (900 words, 50
 * phrases, 50 with `*`) against 2,000 shouts of ordinary words, one in ten holding a
 * watched one, some in look-alike letters. Beside it, in the same run: the same shouts
 * against no pattern, and the floor of reading each shout once (NFKC).
 */
function wordsPart (): void {
  const vocabulary = 'the a board picnic sunday bring share blanket coming who is to on and for with tonight meeting game score team club news welcome thanks great idea see you later'.split(' ')
  const words = Array.from({ length: 1000 }, (_, i) => ({
    id: i + 1,
    pattern: i < 900 ? `badword${i}` : i < 950 ? `cheap pill${i}` : `spam${i}*`,
    action: (['block', 'censor', 'hold'] as const)[i % 3]!
  }))
  const shouts = Array.from({ length: 2000 }, (_, i) => {
    const said = Array.from({ length: 12 + (i % 20) }, (_, k) => vocabulary[(i * 7 + k * 13) % vocabulary.length]!)
    if (i % 10 === 0) said.splice(3, 0, i % 20 === 0 ? `BADWORD${i % 900}` : `bаdwоrd${i % 900}`)
    return said.join(' ')
  })
  const perPost = (check: (text: string) => unknown): number => {
    const times: number[] = []
    for (let round = 0; round < 5; round++) {
      const started = process.hrtime.bigint()
      for (const shout of shouts) check(shout)
      times.push(Number(process.hrtime.bigint() - started) / 1e6 / shouts.length)
    }
    return median(times)
  }
  const full = new WordFilter(words)
  const none = new WordFilter([])
  const matched = shouts.filter(shout => full.check(shout).action !== null || full.check(shout).message !== shout).length
  const floor = perPost(text => text.normalize('NFKC'))
  const empty = perPost(text => none.check(text))
  const checked = perPost(text => full.check(text))
  log(`words: ${fmt(checked, 4)} ms a post with 1,000 patterns, ${fmt(empty, 4)} with none, ${fmt(floor, 4)} to read it once; ${matched} of ${shouts.length} matched`)
  rows.push([`watched words: the check of one post against 1,000 patterns, ${fmt(checked, 4)} ms (target ≤ 0.1 ms; ${matched} of 2,000 posts matched)`, '', '', '', '', ''])
  rows.push([`  beside it: no pattern ${fmt(empty, 4)} ms; reading the text once (NFKC) ${fmt(floor, 4)} ms — 1,000 patterns / reading once: ${fmt(checked / floor, 1)}`, '', '', '', '', ''])
}

// ---------------------------------------------------------------- the run

const rows: string[][] = []
const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—'
const rps = (loads: Load[]): number => median(loads.map(l => l.requestsPerSecond))
/** Of the runs that had answers (a run whose server answered nothing has no latency to show). */
const latency = (loads: Load[]): string => {
  const answered = loads.filter(l => l.total > 0)
  return answered.length === 0 ? '—' : `${fmt(median(answered.map(l => l.p50)))} / ${fmt(median(answered.map(l => l.p99)))} ms`
}
const failures = (loads: Load[]): number => loads.reduce((sum, l) => sum + l.non2xx + l.errors + l.timeouts, 0)

const site = new Site()
const mid = new Site()
const big = new Site()
const archived = new Site()
try {
  log(`database: ${DATABASE_URL === undefined ? 'embedded (PGlite)' : 'PostgreSQL'}; ${ROUNDS} rounds of ${SECONDS} s; ` +
    `the busy, sources and rooms parts' list load from ${WRK_HERE ? 'wrk' : `autocannon (wrk is not installed: ${WRK_INSTALL})`}`)
  await site.create()

  if (PARTS.has('words')) wordsPart()

  // The list at its limit: wrk pinned to the other core, against two bare servers (bench/parts/list.ts).
  if (PARTS.has('list')) rows.push(...await listPart(site, { rounds: ROUNDS, seconds: SECONDS }))

  if (PARTS.has('million')) {
    // Two fresh installations, 10,000 and 1,000,000 shouts, measured in the same rounds.
    for (const [fresh, total] of [[mid, 10_000], [big, 1_000_000]] as const) {
      await fresh.create()
      await fresh.seedTo(total)
      await fresh.api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 })
    }
    // Both restarted just before measuring. Measured: an installation created first and left
    // idle while the other was seeded then served 20–35 % less, whatever it held (creating
    // the million first turned a ratio of 1.23–1.35 into 0.87); restarted, 1.02 both times.
    for (const fresh of [mid, big]) {
      await fresh.stop()
      await fresh.start()
    }
    const sizes = await compare('10,000 vs 1,000,000 stored, maxShouts 50', [`${await mid.url()}/api/shoutbox/list`, `${await big.url()}/api/shoutbox/list`])
    rows.push(['list, maxShouts 50 of 1,000,000', fmt(rps(sizes.second)), '', '', latency(sizes.second), fmt(failures(sizes.second))])
    rows.push(['  1,000,000 vs 10,000 stored (same rounds)', fmt(rps(sizes.first)), '', fmt(sizes.ratio, 2), '', ''])
    await mid.destroy()
    await big.destroy()
  }

  if (PARTS.has('archive')) {
    const total = 1_000_000
    await archived.create()
    // Words as a board has them, not the list parts' identical messages (see archiveSeedSql).
    await archived.offline(async () => {
      log(`seeding ${fmt(total)} shouts for the archive`)
      await archived.sql(archiveSeedSql(total))
      await archived.sql('vacuum analyze shoutbox_shouts')
      await archived.sql('checkpoint')
    })
    const archive = await measureArchive({
      baseUrl: await archived.url(),
      // The seeded ids start at 1: before=1000 is a page a million shouts back.
      deepBefore: 1000,
      seconds: SECONDS,
      load: job => load(job)
    })
    log(`archive: ${Math.round(archive.firstPage.requestsPerSecond)} / ${Math.round(archive.deepPage.requestsPerSecond)} / ${Math.round(archive.search.requestsPerSecond)} req/s`)
    const archiveRow = (label: string, measured: Pick<Load, 'requestsPerSecond' | 'p50' | 'p99' | 'non2xx' | 'errors' | 'timeouts'>): void => {
      rows.push([label, fmt(measured.requestsPerSecond), '', '', `${fmt(measured.p50)} / ${fmt(measured.p99)} ms`, fmt(measured.non2xx + measured.errors + measured.timeouts)])
    }
    archiveRow(`archive, first page (20) of ${fmt(total)}`, archive.firstPage)
    archiveRow(`archive, a page ${fmt(total - 1000)} shouts back`, archive.deepPage)
    archiveRow('archive, search "needle" (1 in 10,000), 2 connections (a client\'s searches at once)', archive.search)
    // One search at a time, whatever the words, against the one query over the whole board
    // the search was before (the database alone, under EXPLAIN ANALYZE).
    const searches = await measureSearches(await archived.url())
    const whole = await archived.offline(async () => {
      const times: number[] = []
      for (const [, q] of SEARCHES) {
        const plan = await archived.sql<{ 'QUERY PLAN': string }>(wholeBoardSearchSql(q))
        times.push(Number(/Execution Time: ([\d.]+) ms/.exec(plan.map(row => row['QUERY PLAN']).join('\n'))?.[1] ?? NaN))
      }
      return times
    })
    rows.push([`archive search, one at a time, of ${fmt(total)} shouts: p50 / p99 (max) (in brackets: the whole-board query of main, database alone)`, '', '', '', '', ''])
    searches.forEach((search, i) => {
      const q = search.q.length > 40 ? `${search.q.slice(0, 37)}…` : search.q
      rows.push([`  ${q}: ${search.label}; ${search.found} found, next ${search.next ?? 'none'} (${fmt(whole[i]!)} ms)`, '', '', '', `${fmt(search.p50)} / ${fmt(search.p99)} (${fmt(search.max)}) ms`, ''])
    })
    log(`archive searches: slowest ${fmt(Math.max(...searches.map(s => s.max)))} ms`)
    // Members' requests alone, then while 16 addresses search without pause (bench/archive.ts); the list as the other parts read it.
    await archived.api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 })
    const flood = await measureSearchFlood(await archived.url(), { username: ADMIN.username, password: ADMIN.password }, archived.cookie, { seconds: Math.max(SECONDS, 20) })
    const statuses = (r: Requests): string => Object.entries(r.statuses).map(([status, count]) => `${status}×${fmt(count)}`).join(' ')
    const floodRow = (label: string, r: Requests): void => { rows.push([`  ${label}: ${statuses(r)}`, fmt(r.count), '', '', `${fmt(r.p50)} / ${fmt(r.p99)} ms`, '']) }
    rows.push([`archive search flood: ${flood.addresses} addresses × 2 searches at once (the attacker's words), ${Math.max(SECONDS, 20)} s; members one request at a time each, idle then flooded`, '', '', '', '', ''])
    for (const kind of ['signIn', 'publish', 'list'] as const) {
      floodRow(`${kind}, idle`, flood.idle[kind])
      floodRow(`${kind}, during the flood`, flood.flood[kind])
    }
    floodRow('the searches', flood.searches)
    log(`search flood: sign-in / publish / list p99 ${fmt(flood.flood.signIn.p99)} / ${fmt(flood.flood.publish.p99)} / ${fmt(flood.flood.list.p99)} ms`)
    await archived.destroy()
  }

  if (PARTS.has('busy')) {
    const results = await busyBoard(site)
    rows.push([`busy board: the list, maxShouts 50 of 10,000, ${BUSY_CONNECTIONS} connections`, '', '', '', '', ''])
    for (const result of results) {
      const label = `  ${fmt(result.rate)} publishes/s`
      rows.push([`${label}, idle list`, fmt(rps(result.idle)), fmt(rps(result.bare)), fmt(result.idleToBare, 2), latency(result.idle), fmt(failures(result.idle))])
      rows.push([`${label}, busy list`, fmt(rps(result.busy)), fmt(rps(result.bare)), fmt(result.busyToBare, 2), latency(result.busy), fmt(failures(result.busy))])
      const published = result.publishers
      const sum = (key: 'sent' | 'errors' | 'skipped'): number => published.reduce((total, p) => total + p[key], 0)
      const unanswered = result.busy.reduce((total, l) => total + l.sent - l.total, 0)
      rows.push([`    busy / idle ${fmt(result.busyToIdle, 2)}; ${fmt(median(published.map(p => p.achievedPerSecond)), 1)} publishes/s achieved, ` +
        `${fmt(sum('errors'))} errors, ${fmt(sum('skipped'))} not sent; answered in ${fmt(median(published.map(p => p.p50)))} / ${fmt(median(published.map(p => p.p99)))} ms`, '', '', '', '', ''])
      rows.push([`    busy list: ${fmt(result.busy.reduce((total, l) => total + l.total, 0))} answered, ${fmt(unanswered)} still waiting when the runs ended`, '', '', '', '', ''])
      const stolen = (runs: Load[]): string => fmt(median(runs.map(run => run.stolen)), 1)
      // Rounds none of whose runs the hypervisor took more than QUIET_STEAL % of the CPU from (an unknown steal is not quiet).
      const quiet = result.busy.flatMap((busy, i) => Math.max(busy.stolen, result.idle[i]!.stolen, result.bare[i]!.stolen) <= QUIET_STEAL ? [busy.requestsPerSecond / result.idle[i]!.requestsPerSecond] : [])
      rows.push([`    CPU stolen by the hypervisor (median %): idle ${stolen(result.idle)}, busy ${stolen(result.busy)}, bare ${stolen(result.bare)}; ` +
        `rounds with at most ${QUIET_STEAL} % stolen in each run: ${quiet.length} of ${result.busy.length}${quiet.length > 0 ? `, busy / idle ${fmt(median(quiet), 2)}` : ''}`, '', '', '', '', ''])
    }
  }

  if (PARTS.has('rooms')) {
    const result = await roomsBoard(site)
    rows.push([`rooms: ${QUIET_ROOM}'s page (latest, 50 of ${fmt(SHOUTS_PER_ROOM)}) while ${BUSY_ROOM} is busy; ${ROOMS} rooms, ${fmt(result.readers)} stream readers (${READERS_PER_ROOM} a room)`, '', '', '', '', ''])
    for (const { rate, idle, busy, busyToIdle, publishers } of result.rates) {
      rows.push([`  ${fmt(rate)} publishes/s in ${BUSY_ROOM}, idle`, fmt(rps(idle)), '', '', latency(idle), fmt(failures(idle))])
      rows.push([`  ${fmt(rate)} publishes/s in ${BUSY_ROOM}, busy`, fmt(rps(busy)), '', '', latency(busy), fmt(failures(busy))])
      rows.push([`    busy / idle ${fmt(busyToIdle, 2)}; ${fmt(median(publishers.map(p => p.achievedPerSecond)), 1)} publishes/s achieved, ${fmt(publishers.reduce((sum, p) => sum + p.errors, 0))} errors`, '', '', '', '', ''])
    }
    rows.push([`  events heard: ${fmt(result.heardInBusyRoom)} by ${BUSY_ROOM}'s ${READERS_PER_ROOM} readers, ${fmt(result.heardElsewhere)} by the ${fmt(result.readers - READERS_PER_ROOM)} readers of the other rooms`, '', '', '', '', ''])
  }

  if (PARTS.has('sources')) {
    const results = await busySources(site)
    rows.push(['sources: the list while the publishes go elsewhere (busy / idle, medians of the rounds)', '', '', '', '', ''])
    for (const { rate, toIdle, runs } of results) {
      const shares = (['sink', 'database', 'host'] as const).flatMap(source => toIdle[source] === undefined ? [] : [`${source} ${fmt(toIdle[source], 2)}`])
      // The host against the limit (sink × database): of the medians, and the median of the rounds' own.
      const byRound = (source: PublishSource): number[] => runs[source].map((_, round) => busyShare(runs, source, round))
      const host = runs.database.length === 0 ? undefined : againstLimit({ sink: byRound('sink'), database: byRound('database'), host: byRound('host') })
      const limit = host === undefined ? '' : `; host / (sink × database) ${fmt(host.ofMedians, 2)}, by round ${fmt(host.medianByRound, 2)}`
      rows.push([`  ${fmt(rate)} publishes/s: ${shares.join(', ')}${limit}`, '', '', '', '', ''])
    }
  }

  if (PARTS.has('alternating')) {
    const results = await alternatingSources(site)
    rows.push(['alternating: the list in busy over idle seconds of one run (busy / idle, medians of the rounds; none: nothing published)', '', '', '', '', ''])
    /** A summary of one reading of the runs: each source's median share, and the host against the limit (sink × database), of the medians and by round. */
    const summary = (runs: AlternatingRate['runs']): string => {
      // A run with no pair to read (NaN) is left out, and said so, rather than sorted into a median.
      const share = (source: AlternatingSource): number[] => (runs[source] ?? []).map(windowShare)
      const unread = (['none', 'sink', 'database', 'host'] as const).reduce((sum, source) => sum + share(source).filter(x => !Number.isFinite(x)).length, 0)
      const toIdle = (source: AlternatingSource): number => finiteMedian(share(source))
      const shares = (['none', 'sink', 'database', 'host'] as const).flatMap(source => runs[source] === undefined ? [] : [`${source} ${fmt(toIdle(source), 2)}`])
      const left = unread === 0 ? '' : ` (${unread} runs without a pair left out)`
      if (runs.database === undefined) return shares.join(', ') + left
      const host = againstLimit({ sink: share('sink'), database: share('database'), host: share('host') })
      return `${shares.join(', ')}; host / (sink × database) ${fmt(host.ofMedians, 2)}, ` +
        `by round ${fmt(host.medianByRound, 2)} (${host.byRound.map(ratio => fmt(ratio, 2)).join(', ')})${left}`
    }
    for (const { rate, runs, settledLonger } of results) {
      rows.push([`  ${fmt(rate)} publishes/s: ${summary(runs)}`, '', '', '', '', ''])
      rows.push([`    leaving out ${SETTLED_LONGER.settleMs} ms of each second: ${summary(settledLonger)}`, '', '', '', '', ''])
    }
  }

  if (PARTS.has('cost')) {
    rows.push(['cost: CPU per publish, ms (host user + system; PostgreSQL, every process; the publishing client)', '', '', '', '', ''])
    // A first run, not shown, so that the host measured is warm whatever parts ran before.
    await publishCost(site, Math.max(...RATES))
    for (const rate of RATES) {
      const cost = await publishCost(site, rate)
      rows.push([`  ${rate} publishes/s (${fmt(cost.published)} in the window): host ${fmt(cost.hostUser + cost.hostSystem, 2)} (${fmt(cost.hostUser, 2)} + ${fmt(cost.hostSystem, 2)}), ` +
        `PostgreSQL ${DATABASE_URL === undefined ? '— (in the host)' : fmt(cost.postgres, 2)}, client ${fmt(cost.publisher, 2)}`, '', '', '', '', ''])
    }
  }

  if (PARTS.has('publish')) {
    const publish = await publishLoad(site)
    rows.push([`publish, 32 clients (${publish.load.total} sent)`, fmt(publish.load.requestsPerSecond), '', '', `${fmt(publish.load.p50)} / ${fmt(publish.load.p99)} ms`, fmt(publish.load.non2xx + publish.load.errors)])
    rows.push([`  acknowledged ${publish.load.status2xx}, stored ${publish.stored}, logged ${publish.logged}, lost ${publish.lost}`, '', '', '', '', ''])
  }

  if (PARTS.has('webhooks')) {
    const receiver = await startWebhookReceiver()
    const hooks: number[] = []
    for (let i = 0; i < 3; i++) {
      const made = await site.api('POST', '/api/panel/webhooks', { url: `${receiver.url}/hook-${i}`, events: ['shout.created'], active: false })
      hooks.push((made.json.webhook as { id: number }).id)
    }
    const switchHooks = async (active: boolean): Promise<void> => {
      for (const id of hooks) await site.api('PUT', `/api/panel/webhooks/${id}`, { active })
    }
    const off: PublisherResult[] = []
    const on: Array<PublisherResult & { catchUpSeconds: number }> = []
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const runs = [
          async () => {
            await switchHooks(false)
            off.push(await publishFor(site, WEBHOOKS_RATE, SECONDS * 2, 'Without hooks'))
          },
          async () => {
            await switchHooks(true)
            const before = receiver.unique()
            const result = await publishFor(site, WEBHOOKS_RATE, SECONDS * 2, 'With three hooks')
            const stopped = performance.now()
            const caughtUp = await eventually(() => receiver.unique() - before >= 3 * result.ok, 120_000)
            on.push({ ...result, catchUpSeconds: caughtUp ? (performance.now() - stopped) / 1000 : Infinity })
          }
        ]
        for (const run of round % 2 === 1 ? runs : runs.reverse()) await run()
        log(`webhooks, round ${round}: ${fmt(on.at(-1)!.achievedPerSecond)}/s with hooks, ${fmt(off.at(-1)!.achievedPerSecond)}/s without; caught up ${fmt(on.at(-1)!.catchUpSeconds, 1)} s after the load`)
      }
    } finally {
      await switchHooks(false)
      await receiver.stop()
    }
    const ratio = median(on.map((run, i) => run.achievedPerSecond / off[i]!.achievedPerSecond))
    rows.push([`webhooks: ${WEBHOOKS_RATE} publishes/s for ${SECONDS * 2} s, ${ROUNDS} rounds`, '', '', '', '', ''])
    rows.push([`  with 3 hooks`, fmt(median(on.map(run => run.achievedPerSecond))), '', '', `${fmt(median(on.map(run => run.p50)))} / ${fmt(median(on.map(run => run.p99)))} ms`, fmt(on.reduce((n, run) => n + run.errors, 0))])
    rows.push([`  without (hooks switched off)`, fmt(median(off.map(run => run.achievedPerSecond))), '', '', `${fmt(median(off.map(run => run.p50)))} / ${fmt(median(off.map(run => run.p99)))} ms`, fmt(off.reduce((n, run) => n + run.errors, 0))])
    rows.push([`  with / without, paired by round: ${fmt(ratio, 2)}; every delivery arrived ${on.map(run => `${fmt(run.catchUpSeconds, 1)} s`).join(', ')} after the load stopped; ${receiver.duplicates()} arrived twice`, '', '', '', '', ''])
  }

  if (PARTS.has('silenthook')) {
    const healthy = await startWebhookReceiver()
    const other = await startWebhookReceiver()
    const silent = await startSilentReceiver()
    const make = async (url: string): Promise<number> =>
      ((await site.api('POST', '/api/panel/webhooks', { url, events: ['shout.created'], active: false })).json.webhook as { id: number }).id
    const measured = await make(`${healthy.url}/hook`)
    // The hook beside the measured one: a silent one, or (the control) a healthy one, the same outbox writes either way.
    const beside = { silent: await make(`${silent.url}/never`), healthy: await make(`${other.url}/hook`) }
    await site.api('PUT', `/api/panel/webhooks/${measured}`, { active: true })
    interface Delays { p50: number, p99: number, max: number, delivered: number, expected: number }
    type Kind = 'silent' | 'healthy'
    const runs: Record<Kind, Delays[]> = { silent: [], healthy: [] }
    const run = async (kind: Kind): Promise<void> => {
      await site.api('PUT', `/api/panel/webhooks/${beside.silent}`, { active: kind === 'silent' })
      await site.api('PUT', `/api/panel/webhooks/${beside.healthy}`, { active: kind === 'healthy' })
      const before = healthy.delays().length
      const result = await publishFor(site, SILENT_HOOK_RATE, SECONDS * 4, `Beside a ${kind} hook`)
      await eventually(() => healthy.delays().length - before >= result.ok, 60_000)
      const delays = healthy.delays().slice(before)
      runs[kind].push({ p50: percentile(delays, 50), p99: percentile(delays, 99), max: percentile(delays, 100), delivered: delays.length, expected: result.ok })
    }
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const order = round % 2 === 1 ? ['silent', 'healthy'] as const : ['healthy', 'silent'] as const
        for (const kind of order) await run(kind)
        const [bySilent, byHealthy] = [runs.silent.at(-1)!, runs.healthy.at(-1)!]
        log(`silenthook, round ${round}: the measured hook's p50 / p99 ${fmt(bySilent.p50)} / ${fmt(bySilent.p99)} ms beside the silent one (${bySilent.delivered}/${bySilent.expected}), ` +
          `${fmt(byHealthy.p50)} / ${fmt(byHealthy.p99)} ms beside a healthy one (${byHealthy.delivered}/${byHealthy.expected}); the silent one tried ${silent.connections()} times so far`)
      }
    } finally {
      // The silent hook's waiting deliveries go with it.
      for (const id of [measured, beside.silent, beside.healthy]) await site.api('DELETE', `/api/panel/webhooks/${id}`)
      await healthy.stop()
      await other.stop()
      await silent.stop()
    }
    const sum = (kind: Kind, key: 'delivered' | 'expected'): number => runs[kind].reduce((n, delays) => n + delays[key], 0)
    const mid = (kind: Kind, key: 'p50' | 'p99'): number => median(runs[kind].map(delays => delays[key]))
    rows.push([`silent hook: a healthy hook's deliveries, change to arrival, ${SILENT_HOOK_RATE} publishes/s for ${SECONDS * 4} s, ${ROUNDS} rounds`, '', '', '', '', ''])
    rows.push([`  beside a hook that never answers (${sum('silent', 'delivered')}/${sum('silent', 'expected')} delivered)`, '', '', '', `${fmt(mid('silent', 'p50'))} / ${fmt(mid('silent', 'p99'))} ms`, ''])
    rows.push([`  beside a healthy hook instead (${sum('healthy', 'delivered')}/${sum('healthy', 'expected')} delivered)`, '', '', '', `${fmt(mid('healthy', 'p50'))} / ${fmt(mid('healthy', 'p99'))} ms`, ''])
    rows.push([`  beside the silent hook, p99 by round ${runs.silent.map(delays => `${fmt(delays.p99)} ms`).join(', ')} (target ≤ 2,000), slowest ${fmt(Math.max(...runs.silent.map(delays => delays.max)))} ms; ` +
      `the silent receiver was tried ${silent.connections()} times`, '', '', '', '', ''])
  }

  const fanOutRows = (label: string, host: FanOut[], bare: FanOut[]): void => {
    const sum = (runs: FanOut[], key: 'delivered' | 'expected' | 'missed' | 'closed' | 'duplicates'): number => runs.reduce((total, run) => total + run[key], 0)
    const mid = (runs: FanOut[], key: 'p50' | 'p99' | 'max' | 'sentP50' | 'sentP99' | 'answerP50' | 'answerMax' | 'connectSeconds' | 'idleMiB' | 'rssMiB' | 'perSubscriberKiB'): number => median(runs.map(run => run[key]))
    const ratio = (key: 'p50' | 'p99' | 'sentP50' | 'sentP99'): number => median(host.map((run, i) => run[key] / bare[i]![key]))
    rows.push([`${label}, ${fmt(host[0]!.subscribers)} subscribers, ${host.length} rounds (${sum(host, 'delivered')}/${sum(host, 'expected')} delivered)`, '', '', '', `${fmt(mid(host, 'p50'))} / ${fmt(mid(host, 'p99'))} ms`, ''])
    rows.push([`  ${fmt(sum(host, 'missed'))} missed an event, ${fmt(sum(host, 'closed'))} closed, ${fmt(sum(host, 'duplicates'))} duplicates; slowest ${fmt(mid(host, 'max'))} ms`, '', '', '', '', ''])
    rows.push([`  publishes answered in ${fmt(mid(host, 'answerP50'))} ms (p50), ${fmt(mid(host, 'answerMax'))} ms at most; by the bare fan-out, ${fmt(mid(bare, 'answerP50'))} and ${fmt(mid(bare, 'answerMax'))} ms`, '', '', '', '', ''])
    rows.push([`  delivery from the publish's sending, p50 / p99: host ${fmt(mid(host, 'sentP50'))} / ${fmt(mid(host, 'sentP99'))} ms, bare ${fmt(mid(bare, 'sentP50'))} / ${fmt(mid(bare, 'sentP99'))} ms`, '', '', '', '', ''])
    rows.push([`  host resident memory: ${fmt(mid(host, 'idleMiB'))} MiB before they connected, ${fmt(mid(host, 'rssMiB'))} MiB with them, ${fmt(mid(host, 'perSubscriberKiB'), 1)} KiB a subscriber ` +
      `(bare node:http: ${fmt(mid(bare, 'idleMiB'))} MiB, ${fmt(mid(bare, 'rssMiB'))} MiB, ${fmt(mid(bare, 'perSubscriberKiB'), 1)} KiB a subscriber)`, '', '', '', '', ''])
    rows.push([`  bare node:http fan-out, same subscribers and frames (${sum(bare, 'delivered')}/${sum(bare, 'expected')} delivered)`, '', '', '', `${fmt(mid(bare, 'p50'))} / ${fmt(mid(bare, 'p99'))} ms`, ''])
    rows.push([`  host / bare, paired by round: p50 ${fmt(ratio('p50'), 2)}, p99 ${fmt(ratio('p99'), 2)}; from the publish's sending, p50 ${fmt(ratio('sentP50'), 2)}, p99 ${fmt(ratio('sentP99'), 2)}`, '', '', '', '', ''])
  }

  /**
   * The host restarted, and warmed by a list and a publish: its memory before the
   * subscribers connect must not depend on the parts before (after the busy part, a
   * collection during the stream part once made the memory with 2,000 subscribers
   * smaller than without them).
   */
  const restarted = async (): Promise<Site> => {
    await site.stop()
    await site.start()
    await site.api('GET', '/api/shoutbox/list')
    await site.api('POST', '/api/panel/shoutbox', { message: 'Warming up before the subscribers connect.' })
    await sleep(2000)
    return site
  }

  /** `ROUNDS` rounds of the host and the bare fan-out, back to back, the order alternating. */
  const streamRounds = async (label: string, run: (target: StreamTarget) => Promise<FanOut>): Promise<{ host: FanOut[], bare: FanOut[] }> => {
    const host: FanOut[] = []
    const bare: FanOut[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const runs = [
        async () => { host.push(await run(hostTarget(await restarted(), await site.url()))) },
        async () => { bare.push(await withBareStream(run)) }
      ]
      for (const each of round % 2 === 1 ? runs : runs.reverse()) await each()
      log(`${label}, round ${round}: host p50/p99 ${host.at(-1)!.p50}/${host.at(-1)!.p99} ms, bare ${bare.at(-1)!.p50}/${bare.at(-1)!.p99} ms ` +
        `(from the sending: host ${host.at(-1)!.sentP50}/${host.at(-1)!.sentP99}, bare ${bare.at(-1)!.sentP50}/${bare.at(-1)!.sentP99}); ` +
        `resident memory a reader: host ${fmt(host.at(-1)!.perSubscriberKiB, 1)} KiB, bare ${fmt(bare.at(-1)!.perSubscriberKiB, 1)} KiB ` +
        `(host ${fmt(host.at(-1)!.idleMiB)} MiB before, ${fmt(host.at(-1)!.connectedMiB)} once connected, ${fmt(host.at(-1)!.rssMiB)} after the publishes)`)
    }
    return { host, bare }
  }
  const streamPart = async (label: string, subscribers: number, gapMs: number): Promise<void> => {
    const { host, bare } = await streamRounds(label, target => fanOut(target, subscribers, gapMs))
    fanOutRows(label, host, bare)
  }

  if (PARTS.has('stream')) await streamPart('stream, 20 publishes 250 ms apart', SUBSCRIBERS ?? 2000, 250)
  if (PARTS.has('stream10k')) await streamPart('stream10k, a burst of 20 publishes', SUBSCRIBERS ?? 10_000, 0)

  if (PARTS.has('reactions')) {
    // Each round: the host quiet, the host while members react, the bare fan-out quiet and
    // the bare fan-out under the same reactions — in an order that rotates — with the same
    // readers and publishes. The bare fan-out keeps the reactions in memory and writes their
    // counts under the host's once-a-second rule (bench/bare-stream.ts): what any server
    // obeying that rule must at least do for this load.
    const readers = SUBSCRIBERS ?? 10_000
    const label = `reactions, ${fmt(readers)} readers, 20 publishes 250 ms apart while ${REACTIONS_PER_SECOND} reactions/s arrive on ${REACTION_SHOUTS} shouts`
    const reactors = await prepareReactors(await site.url(), site.cookie, REACTING_MEMBERS, REACTION_SHOUTS)
    const hostReacting: ReactingResult[] = []
    const bareReacting: ReactingResult[] = []
    const quiet: FanOut[] = []
    const busy: FanOut[] = []
    const bare: FanOut[] = []
    const bareBusy: FanOut[] = []
    /** The members' load, started with the publishes and stopped after their deliveries. */
    const reactingOn = (baseUrl: string, results: ReactingResult[], who: Reactors): Background => {
      let load: ReturnType<typeof startReacting> | undefined
      return {
        start: () => { load = startReacting(baseUrl, who, REACTIONS_PER_SECOND) },
        stop: async () => { results.push(await load!.stop()) }
      }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const runs = [
        async () => { quiet.push(await fanOut(hostTarget(await restarted(), await site.url()), readers, 250)) },
        async () => {
          const target = hostTarget(await restarted(), await site.url())
          busy.push(await fanOut(target, readers, 250, FAN_OUT_PUBLISHES, false, reactingOn(target.baseUrl, hostReacting, reactors)))
        },
        async () => { bare.push(await withBareStream(target => fanOut(target, readers, 250))) },
        // A new bare process each run: it knows no reaction yet.
        async () => { bareBusy.push(await withBareStream(target => fanOut(target, readers, 250, FAN_OUT_PUBLISHES, false, reactingOn(target.baseUrl, bareReacting, { ...reactors, on: new Set() })))) }
      ]
      for (let i = 0; i < runs.length; i++) await runs[(i + round - 1) % runs.length]!()
      log(`${label}, round ${round}: p50/p99 host quiet ${quiet.at(-1)!.p50}/${quiet.at(-1)!.p99} ms, reacting ${busy.at(-1)!.p50}/${busy.at(-1)!.p99} ms; ` +
        `bare quiet ${bare.at(-1)!.p50}/${bare.at(-1)!.p99} ms, reacting ${bareBusy.at(-1)!.p50}/${bareBusy.at(-1)!.p99} ms; ` +
        `reaction events ${hostReacting.at(-1)!.events} (host), ${bareReacting.at(-1)!.events} (bare) in ${fmt(hostReacting.at(-1)!.seconds, 1)} s`)
    }
    fanOutRows(label, busy, bareBusy)
    const paired = (runs: FanOut[], against: FanOut[], key: 'p50' | 'p99'): string => fmt(median(runs.map((run, i) => run[key] / against[i]![key])), 2)
    const p = (runs: FanOut[]): string => `${fmt(median(runs.map(run => run.p50)))} / ${fmt(median(runs.map(run => run.p99)))} ms`
    rows.push([`  (the bare fan-out above took the same reaction requests and wrote their counts once a second per shout)`, '', '', '', '', ''])
    rows.push([`  the host without reactions: p50 / p99 ${p(quiet)}; reacting / quiet, paired by round: p50 ${paired(busy, quiet, 'p50')}, p99 ${paired(busy, quiet, 'p99')}`, '', '', '', '', ''])
    rows.push([`  the bare fan-out without reactions: p50 / p99 ${p(bare)}; host reacting / bare quiet: p50 ${paired(busy, bare, 'p50')}, p99 ${paired(busy, bare, 'p99')}; bare reacting / bare quiet: p99 ${paired(bareBusy, bare, 'p99')}`, '', '', '', '', ''])
    const heard = (results: ReactingResult[]): string => {
      const statuses = results.map(run => Object.entries(run.statuses).map(([status, n]) => `${n} × ${status}`).join(', ')).join('; ')
      return `${results.map(run => `${run.events} in ${fmt(run.seconds, 1)} s (${fmt(run.events / run.seconds, 1)}/s), at most ${run.mostInASecond} in a second`).join('; ')} — for ${results.map(run => run.sent).join(', ')} requests (${statuses}), ` +
        `answered in p50 / p99 ${results.map(run => `${run.answerP50} / ${run.answerP99}`).join(', ')} ms; a reader answered ${[...new Set(results.map(run => run.readerStatus))].join(', ')}`
    }
    const cpu = (runs: FanOut[]): string => fmt(median(runs.map(run => run.cpuPerPublishMs)), 1)
    rows.push([`  server CPU over the publishing, ms a publish: host quiet ${cpu(quiet)}, reacting ${cpu(busy)}; bare quiet ${cpu(bare)}, reacting ${cpu(bareBusy)}`, '', '', '', '', ''])
    rows.push([`  reaction events on the host's stream: ${heard(hostReacting)}`, '', '', '', '', ''])
    rows.push([`  reaction events on the bare stream: ${heard(bareReacting)}`, '', '', '', '', ''])
  }

  if (PARTS.has('presence')) {
    // Each round: the host while readers join and leave, and the quiet board (the same
    // readers and publishes, nobody joining or leaving), the order alternating, the host
    // restarted before each. Every reader counts the presence frames it hears.
    const readers = SUBSCRIBERS ?? 10_000
    const rooms = await churnRooms(site)
    // The readers are widgets: their streams hear every room and say they show the board's own.
    const showing = (target: StreamTarget): StreamTarget => ({ ...target, streamUrl: `${target.streamUrl}?showing=${rooms[0]!}` })
    const label = `presence, ${fmt(readers)} readers, 20 publishes 250 ms apart while ${CHURN_PER_SECOND} readers a second join and leave`
    const churns: ChurnResult[] = []
    const quiet: FanOut[] = []
    const busy: FanOut[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const runs = [
        async () => { quiet.push(await fanOut(showing(hostTarget(await restarted(), await site.url())), readers, 250, FAN_OUT_PUBLISHES, false, quietLead(), 'presence')) },
        async () => {
          const target = showing(hostTarget(await restarted(), await site.url()))
          busy.push(await fanOut(target, readers, 250, FAN_OUT_PUBLISHES, false, churning(target.streamUrl, rooms, churns, 120), 'presence'))
        }
      ]
      for (const each of round % 2 === 1 ? runs : runs.reverse()) await each()
      const frames = (run: FanOut): number => run.presence!.counted.perReader.reduce((a, b) => a + b, 0)
      log(`${label}, round ${round}: p50/p99 churning ${busy.at(-1)!.p50}/${busy.at(-1)!.p99} ms, quiet ${quiet.at(-1)!.p50}/${quiet.at(-1)!.p99} ms; ` +
        `presence frames heard ${frames(busy.at(-1)!)} in ${fmt(busy.at(-1)!.presence!.seconds, 1)} s (quiet: ${frames(quiet.at(-1)!)} in ${fmt(quiet.at(-1)!.presence!.seconds, 1)} s); load average ${os.loadavg().map(n => n.toFixed(2)).join(' ')}`)
    }
    const sum = (runs: FanOut[], key: 'delivered' | 'expected' | 'missed' | 'closed' | 'duplicates'): number => runs.reduce((total, run) => total + run[key], 0)
    const p = (runs: FanOut[], key: 'p50' | 'answerP50' = 'p50', other: 'p99' | 'answerMax' = 'p99'): string => `${fmt(median(runs.map(run => run[key])))} / ${fmt(median(runs.map(run => run[other])))} ms`
    const paired = (key: 'p50' | 'p99' | 'sentP99'): number => median(busy.map((run, i) => run[key] / quiet[i]![key]))
    rows.push([`${label}, ${ROUNDS} rounds (${sum(busy, 'delivered')}/${sum(busy, 'expected')} delivered)`, '', '', '', p(busy), ''])
    rows.push([`  the quiet board: the same readers, nobody joining or leaving (${sum(quiet, 'delivered')}/${sum(quiet, 'expected')} delivered)`, '', '', '', p(quiet), ''])
    rows.push([`  churning / quiet, paired by round: p50 ${fmt(paired('p50'), 2)}, p99 ${fmt(paired('p99'), 2)} (target ≤ 1.2; by round ${busy.map((run, i) => fmt(run.p99 / quiet[i]!.p99, 2)).join(', ')}); ` +
      `from the publish's sending, p99 ${fmt(paired('sentP99'), 2)}`, '', '', '', '', ''])
    rows.push([`  ${fmt(sum(busy, 'missed'))} missed an event, ${fmt(sum(busy, 'closed'))} closed, ${fmt(sum(busy, 'duplicates'))} duplicates (quiet: ${fmt(sum(quiet, 'missed'))}, ${fmt(sum(quiet, 'closed'))}, ${fmt(sum(quiet, 'duplicates'))}); ` +
      `publishes answered p50 / max churning ${p(busy, 'answerP50', 'answerMax')}, quiet ${p(quiet, 'answerP50', 'answerMax')}`, '', '', '', '', ''])
    const cpu = (runs: FanOut[]): string => fmt(median(runs.map(run => run.cpuPerPublishMs)), 1)
    rows.push([`  server CPU over the publishing, ms a publish: churning ${cpu(busy)}, quiet ${cpu(quiet)}`, '', '', '', '', ''])
    for (const note of presenceNotes(quiet.map(run => run.presence!), busy.map(run => run.presence!), churns, rooms)) rows.push([note, '', '', '', '', ''])
  }

  if (PARTS.has('direct')) {
    // A fresh start: the part's members, sessions and conversations are written with the host stopped.
    rows.push(...await directPart(await restarted(), {
      conversations: Number(options.conversations),
      ...(options['direct-rate'] === undefined ? {} : { rate: Number(options['direct-rate']) }),
      rounds: ROUNDS
    }))
  }

  if (PARTS.has('listmemory')) {
    // The seed's default, maxShouts unset, on a million shouts: one anonymous list request
    // sends every one. What the process keeps after it has sent the answer, against before.
    const total = 1_000_000
    await big.create()
    await big.seedTo(total)
    await big.api('PUT', '/api/panel/shoutbox/config', { maxShouts: null })
    await big.stop()
    await big.start()
    await sleep(3000)
    const before = await big.rssMiB()
    let peak = before
    const watching = setInterval(() => { void big.rssMiB().then(now => { peak = Math.max(peak, now) }) }, 100)
    const started = Date.now()
    const response = await fetch(`${await big.url()}/api/shoutbox/list`)
    const bytes = (await response.arrayBuffer()).byteLength
    const seconds = (Date.now() - started) / 1000
    clearInterval(watching)
    await sleep(5000)
    const after = await big.rssMiB()
    // A quiet process collects its garbage when it next allocates: a health check a second for 25 s.
    for (let i = 0; i < 25; i++) {
      await fetch(`${await big.url()}/api/health`).then(answer => answer.text())
      await sleep(1000)
    }
    const later = await big.rssMiB()
    rows.push([`list memory: maxShouts unset, ${fmt(total)} shouts, one request (${fmt(bytes / 1e6, 1)} MB in ${fmt(seconds, 1)} s, status ${response.status})`, '', '', '', '', ''])
    rows.push([`  host resident memory: ${fmt(before)} MiB before, ${fmt(peak)} MiB at most while answering, ${fmt(after)} MiB 5 s after, ${fmt(later)} MiB 30 s after; after / before ${fmt(after / before, 2)}, ${fmt(later / before, 2)}`, '', '', '', '', ''])
    await big.destroy()
  }

  if (PARTS.has('widgets')) {
    // The readers are widgets: each loads what the real widget loads on `ready`, then
    // sends what it sends for each event (nothing, for a publish). maxShouts unset, as
    // the seed ships: a widget's first load is the newest 50 all the same.
    await site.api('PUT', '/api/panel/shoutbox/config', { maxShouts: null })
    const readers = SUBSCRIBERS ?? 10_000
    const label = `widgets, ${fmt(WIDGETS_RATE)} publishes/s for ${WIDGETS_SECONDS} s`
    const { host, bare } = await streamRounds(label, target => fanOut(target, readers, 1000 / WIDGETS_RATE, WIDGETS_RATE * WIDGETS_SECONDS, true))
    fanOutRows(label, host, bare)
    const sum = (runs: FanOut[], key: 'requests' | 'firstLoads' | 'requestFailures' | 'connected'): number => runs.reduce((total, run) => total + run[key], 0)
    const perPublishPerReader = median(host.map(run => run.requests / (run.publishes * run.connected)))
    rows.push([`  widget requests per publish per reader, after the first load: ${fmt(perPublishPerReader, 3)} (${fmt(sum(host, 'requests'))} in all); ` +
      `first loads ${fmt(sum(host, 'firstLoads'))} for ${fmt(sum(host, 'connected'))} readers, ${fmt(sum(host, 'requestFailures'))} failed`, '', '', '', '', ''])
    rows.push([`  server CPU a publish with ${fmt(readers)} readers: host ${fmt(median(host.map(run => run.cpuPerPublishMs)), 2)} ms, bare ${fmt(median(bare.map(run => run.cpuPerPublishMs)), 2)} ms`, '', '', '', '', ''])
  }

  if (PARTS.has('exports')) {
    const exporting = new Site()
    try {
      await exporting.create()
      const result = await measureExports(exporting, log)
      const statuses = [...new Set(result.statuses)].map(status => `${result.statuses.filter(s => s === status).length} × ${status}`).join(', ')
      rows.push([`exports: 6 at once of a ${fmt(EXPORT_SHOUTS)}-shout member, 2 from each of 3 addresses (${fmt(result.bytes[0]! / 1e6, 1)} MB each, ${fmt(result.seconds, 1)} s for all)`, '', '', '', '', ''])
      rows.push([`  statuses ${statuses}; shouts in each ${[...new Set(result.shouts)].map(n => fmt(n)).join(', ')}; a 7th from one of the addresses meanwhile: ${result.refused.status} (Retry-After ${result.refused.retryAfter ?? 'none'})`, '', '', '', '', ''])
      rows.push([`  host resident memory: ${fmt(result.idleMiB)} MiB idle, ${fmt(result.peakMiB)} MiB at most, +${fmt(result.peakMiB - result.idleMiB)} MiB (bound: 64)`, '', '', '', '', ''])
    } finally {
      await exporting.destroy()
    }
  }
} finally {
  await mid.destroy()
  await big.destroy()
  await archived.destroy()
  await site.destroy()
}

const header = ['scenario', 'host req/s', 'bare node:http req/s', 'ratio', 'p50 / p99', 'non-2xx']
const widths = header.map((h, i) => Math.max(h.length, ...rows.map(r => (r[i] ?? '').length)))
const line = (cells: string[]): string => cells.map((c, i) => i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)).join('  ')
process.stdout.write(`\nShoutbox benchmark — ${DATABASE_URL === undefined ? 'embedded PostgreSQL (PGlite)' : 'PostgreSQL'}, ${os.cpus().length} cores${PIN ? ' (servers on core 0, load on core 1)' : ''}, Node ${process.version}, ${ROUNDS} rounds × ${SECONDS} s, medians\n\n`)
process.stdout.write(line(header) + '\n' + widths.map(w => '-'.repeat(w)).join('  ') + '\n')
for (const row of rows) process.stdout.write(line(row) + '\n')
