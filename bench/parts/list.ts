/**
 * The list part (`--only list`): the list, `maxShouts` 50 of 10,000, at its real limit —
 * load from wrk (bench/parts/wrk.ts) pinned to core 1, the servers to core 0 — against two
 * bare node:http servers (bench/bare-server.ts) in the same rounds: one sending the same
 * status, bytes and headers as the host, one sending the body alone (only what Node adds
 * to every answer). The same again for a `304`: the client sends the list's ETag in
 * `If-None-Match`; the baselines answer 304 with the host's headers, and with none.
 *
 * Each of `rounds` rounds runs the three servers back to back, `seconds` each, in an
 * order that rotates; the figures are medians, the ratios the medians of the rounds'.
 * Every run also reads the CPU the server and wrk used (/proc): a run is only a figure
 * of the server if wrk stayed short of a core (WRK_SATURATED) — the rows say how many
 * runs did not, and the load average of the machine (shared) at the end of the part.
 *
 * Without wrk the part is skipped with a line saying how to install it.
 */
import os from 'node:os'
import { log, median, startBareServer } from './processes.js'
import type { Site } from './site.js'
import { WRK_INSTALL, WRK_SATURATED, generatorBound, wrk, wrkAvailable, type WrkRun } from './wrk.js'

/** A row of the bench's table: scenario, host req/s, bare req/s, ratio, p50 / p99, failures. */
export type Row = [string, string, string, string, string, string]

const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—'
const note = (text: string): Row => [text, '', '', '', '', '']

type Server = 'host' | 'same' | 'body'
const SERVERS: readonly Server[] = ['host', 'same', 'body']

interface Scenario {
  readonly label: string
  /** What the client sends besides wrk's own headers. */
  readonly headers: Readonly<Record<string, string>>
  readonly status: 200 | 304
}

interface Measured {
  readonly scenario: Scenario
  readonly runs: Record<Server, WrkRun[]>
  /** Median over the rounds of host / same and host / body. */
  readonly toSame: number
  readonly toBody: number
  /** The same ratios of requests a second of the server's CPU: what each answer costs, whatever share of its core the machine left it. */
  readonly cpuToSame: number
  readonly cpuToBody: number
}

/** Requests answered a second of the server's CPU time. */
const perCpuSecond = (run: WrkRun): number => run.requestsPerSecond / (run.serverCpu / 100)

/** The answer's headers a bare server repeats: those the host adds to Node's own. */
const REPEATED = ['content-type', 'etag', 'cache-control', 'x-content-type-options', 'vary', 'access-control-allow-origin']

/** What the host answers `headers` with now: status, body and the headers a bare server repeats. */
async function sample (url: string, headers: Readonly<Record<string, string>>): Promise<{ status: number, body: string, headers: Record<string, string> }> {
  const response = await fetch(url, { headers })
  const body = await response.text()
  const repeated: Record<string, string> = {}
  for (const name of REPEATED) {
    const value = response.headers.get(name)
    if (value !== null) repeated[name] = value
  }
  return { status: response.status, body, headers: repeated }
}

async function measure (site: Site, url: string, scenario: Scenario, rounds: number, seconds: number): Promise<Measured> {
  const answer = await sample(url, scenario.headers)
  if (answer.status !== scenario.status) throw new Error(`${scenario.label}: the host answered ${answer.status}, not ${scenario.status}`)
  const same = await startBareServer(answer.body, answer.headers, scenario.status)
  const body = await startBareServer(answer.body, {}, scenario.status)
  try {
    const targets: Record<Server, { url: string, pid: number }> = {
      host: { url, pid: site.child!.pid! },
      same: { url: `http://127.0.0.1:${same.port}/api/shoutbox/list`, pid: same.pid },
      body: { url: `http://127.0.0.1:${body.port}/api/shoutbox/list`, pid: body.pid }
    }
    const job = (which: Server, runSeconds: number) => ({ url: targets[which].url, serverPid: targets[which].pid, seconds: runSeconds, headers: scenario.headers })
    // Warm-up: each server's code optimised before its first measured run.
    for (const which of SERVERS) await wrk(job(which, 1))
    const runs: Record<Server, WrkRun[]> = { host: [], same: [], body: [] }
    for (let round = 1; round <= rounds; round++) {
      const order = SERVERS.map((_, i) => SERVERS[(i + round - 1) % SERVERS.length]!)
      for (const which of order) runs[which].push(await wrk(job(which, seconds)))
      const last = (which: Server): string => {
        const run = runs[which].at(-1)!
        return `${which} ${Math.round(run.requestsPerSecond)} (server ${Math.round(run.serverCpu)} %, wrk ${Math.round(run.wrkCpu)} %, ${Math.round(perCpuSecond(run))} a CPU second)`
      }
      log(`list, ${scenario.label}, round ${round}: ${SERVERS.map(last).join(', ')} req/s; load average ${os.loadavg().map(n => n.toFixed(2)).join(' ')}`)
    }
    const ratio = (other: Server, of: (run: WrkRun) => number): number => median(runs.host.map((run, i) => of(run) / of(runs[other][i]!)))
    const rate = (run: WrkRun): number => run.requestsPerSecond
    return { scenario, runs, toSame: ratio('same', rate), toBody: ratio('body', rate), cpuToSame: ratio('same', perCpuSecond), cpuToBody: ratio('body', perCpuSecond) }
  } finally {
    same.stop()
    body.stop()
  }
}

function rowsOf ({ scenario, runs, toSame, toBody, cpuToSame, cpuToBody }: Measured): Row[] {
  const mid = (which: Server, key: keyof Omit<WrkRun, 'loadAverage'>): number => median(runs[which].map(run => run[key]))
  const failures = SERVERS.reduce((sum, which) => sum + runs[which].reduce((n, run) => n + run.errors + run.badStatus, 0), 0)
  const all = SERVERS.flatMap(which => runs[which])
  const bound = all.filter(generatorBound).length
  const cpu = (key: 'serverCpu' | 'wrkCpu'): string => SERVERS.map(which => `${which} ${fmt(mid(which, key))}`).join(', ')
  return [
    [`list (wrk), ${scenario.label}`, fmt(mid('host', 'requestsPerSecond')), fmt(mid('same', 'requestsPerSecond')), fmt(toSame, 2),
      `${fmt(mid('host', 'p50Ms'), 2)} / ${fmt(mid('host', 'p99Ms'), 2)} ms`, fmt(failures)],
    ['  bare node:http sending the body alone', '', fmt(mid('body', 'requestsPerSecond')), fmt(toBody, 2), `${fmt(mid('body', 'p50Ms'), 2)} / ${fmt(mid('body', 'p99Ms'), 2)} ms`, ''],
    note(`    bytes a response: host ${fmt(mid('host', 'bytesPerResponse'))}, same ${fmt(mid('same', 'bytesPerResponse'))}, body alone ${fmt(mid('body', 'bytesPerResponse'))}`),
    note(`    requests a second of the server's CPU (medians): host ${fmt(median(runs.host.map(perCpuSecond)))}, same ${fmt(median(runs.same.map(perCpuSecond)))}, body alone ${fmt(median(runs.body.map(perCpuSecond)))}; ` +
      `host / same ${fmt(cpuToSame, 2)}, host / body alone ${fmt(cpuToBody, 2)}`),
    note(`    CPU, % of a core (medians): server ${cpu('serverCpu')}; wrk ${cpu('wrkCpu')}; core 0 busy ${fmt(median(all.map(run => run.core0Busy)))}, core 1 ${fmt(median(all.map(run => run.core1Busy)))}`),
    note(`    generator: ${bound === 0 ? 'not saturated in any run' : `at or above ${WRK_SATURATED} % of a core in ${bound} of ${all.length} runs — those runs measure wrk, not the server`}; ` +
      `load average (1 min) ${fmt(Math.min(...all.map(run => run.loadAverage[0]!)), 2)}–${fmt(Math.max(...all.map(run => run.loadAverage[0]!)), 2)} over the runs`)
  ]
}

/** The list part's rows; one line instead when wrk is missing. */
export async function listPart (site: Site, { rounds, seconds }: { rounds: number, seconds: number }): Promise<Row[]> {
  if (!await wrkAvailable()) {
    log(`list: wrk is not installed; the list part is skipped (install it: ${WRK_INSTALL})`)
    return [note(`list: skipped, wrk is not installed (${WRK_INSTALL})`)]
  }
  if (seconds < 1) throw new Error('the list part needs --seconds 1 or more')
  await site.seedTo(10_000)
  await site.api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 })
  const url = `${await site.url()}/api/shoutbox/list`
  const etag = (await fetch(url).then(async response => { await response.arrayBuffer(); return response.headers.get('etag') }))
  if (etag === null) throw new Error('the list has no ETag')
  const scenarios: Scenario[] = [
    { label: 'maxShouts 50 of 10,000', headers: {}, status: 200 },
    { label: 'maxShouts 50 of 10,000, 304 (If-None-Match)', headers: { 'if-none-match': etag }, status: 304 }
  ]
  const rows: Row[] = []
  for (const scenario of scenarios) rows.push(...rowsOf(await measure(site, url, scenario, rounds, seconds)))
  return rows
}
