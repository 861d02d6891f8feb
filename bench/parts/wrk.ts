/**
 * The load generator that outruns a bare node:http server: `wrk` (C, Debian's package),
 * one thread pinned to core 1 while the server is pinned to core 0. autocannon (node)
 * could not: on this machine it read 28,000–34,000 requests a second from the bare
 * server that wrk reads 56,000–63,000 from, so every ratio it gave was its own ceiling.
 *
 * Each run also reads, from /proc, the CPU time the server and wrk used while it ran,
 * and how busy each core was, so the run itself shows which side was the bottleneck:
 * a valid run has the server's core busy and wrk's process short of a core.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PIN, cpuMs, sleep } from './processes.js'

export const WRK = '/usr/bin/wrk'
/** What to run when wrk is missing. */
export const WRK_INSTALL = 'apt-get install -y wrk'

/** Whether wrk can be run here. */
export async function wrkAvailable (): Promise<boolean> {
  return new Promise(resolve => {
    const probe = spawn(WRK, ['--version'])
    probe.on('error', () => resolve(false))
    // wrk --version prints its usage and exits 1: that it ran at all is what counts.
    probe.on('exit', code => resolve(code !== null))
  })
}

/** wrk's `done` hook, printing its summary as one JSON line (latencies in µs). */
const SUMMARY_SCRIPT = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"durationUs":%d,"requests":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.duration, summary.requests, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, latency:percentile(50), latency:percentile(99)))
end
`

/** A core's time so far (`cpu0`, `cpu1`; `cpu` for the machine), in ticks: all of it, the idle part (idle and iowait), and what the hypervisor stole. */
export async function coreTicks (core: number | ''): Promise<{ all: number, idle: number, stolen: number } | undefined> {
  try {
    const line = (await fs.readFile('/proc/stat', 'utf8')).split('\n').find(each => each.startsWith(`cpu${core} `))
    const fields = line!.trim().split(/\s+/).slice(1, 9).map(Number)
    return { all: fields.reduce((a, b) => a + b, 0), idle: fields[3]! + fields[4]!, stolen: fields[7]! }
  } catch {
    return undefined
  }
}

/** A process's CPU time (user + system) so far, ms. */
const processMs = async (pid: number): Promise<number> => {
  const { user, system } = await cpuMs(pid)
  return user + system
}

export interface WrkRun {
  readonly requestsPerSecond: number
  readonly requests: number
  /** Bytes read a response (head and body): the same for a baseline that sends the same bytes. */
  readonly bytesPerResponse: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Socket errors (connect, read, write, timeout) and answers other than 2xx or 3xx. */
  readonly errors: number
  readonly badStatus: number
  /** CPU the server's process used over the measured stretch, % of one core. */
  readonly serverCpu: number
  /** CPU wrk used over the same stretch, % of one core. */
  readonly wrkCpu: number
  /** How busy cores 0 and 1 were over it, whoever used them, %. */
  readonly core0Busy: number
  readonly core1Busy: number
  /** The share of the machine's CPU time (%) its hypervisor gave to other guests meanwhile (steal). */
  readonly stolen: number
  /** The load average when the run ended (1, 5, 15 minutes). */
  readonly loadAverage: readonly number[]
}

export interface WrkJob {
  readonly url: string
  /** The server's process, whose CPU is read (NaN without). */
  readonly serverPid?: number
  readonly seconds: number
  readonly connections?: number
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * wrk against `url` for `seconds`, 1 thread and `connections` (50 by default), pinned to
 * core 1. The CPU readings cover the run but its first 300 ms (connections opening) and
 * last 200 ms.
 */
export async function wrk ({ url, serverPid, seconds, connections = 50, headers = {} }: WrkJob): Promise<WrkRun> {
  const script = path.join(os.tmpdir(), `shoutbox-bench-wrk-${process.pid}.lua`)
  await fs.writeFile(script, SUMMARY_SCRIPT)
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), url]
  const child = spawn(PIN ? 'taskset' : WRK, PIN ? ['-c', '1', WRK, ...args] : args, { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const exited = new Promise<number | null>((resolve, reject) => { child.on('exit', resolve); child.on('error', reject) })
  // taskset execs wrk: the child's pid is wrk's.
  const read = async () => ({
    at: performance.now(),
    server: serverPid === undefined ? NaN : await processMs(serverPid),
    wrk: await processMs(child.pid!),
    core0: await coreTicks(0),
    core1: await coreTicks(1),
    machine: await coreTicks('')
  })
  await sleep(300)
  const before = await read()
  await sleep(seconds * 1000 - 500)
  const after = await read()
  const code = await exited
  await fs.rm(script, { force: true })
  const line = output.split('\n').find(each => each.startsWith('{'))
  if (line === undefined) throw new Error(`wrk exited with ${code} and no summary:\n${output}`)
  const summary = JSON.parse(line) as { durationUs: number, requests: number, bytes: number, connect: number, read: number, write: number, status: number, timeout: number, p50Us: number, p99Us: number }
  const wallMs = after.at - before.at
  type Ticks = { all: number, idle: number } | undefined
  const busy = (a: Ticks, b: Ticks): number =>
    a === undefined || b === undefined || b.all === a.all ? NaN : 100 * (1 - (b.idle - a.idle) / (b.all - a.all))
  return {
    requestsPerSecond: summary.requests / (summary.durationUs / 1e6),
    requests: summary.requests,
    bytesPerResponse: summary.requests === 0 ? 0 : summary.bytes / summary.requests,
    p50Ms: summary.p50Us / 1000,
    p99Ms: summary.p99Us / 1000,
    errors: summary.connect + summary.read + summary.write + summary.timeout,
    badStatus: summary.status,
    serverCpu: 100 * (after.server - before.server) / wallMs,
    wrkCpu: 100 * (after.wrk - before.wrk) / wallMs,
    core0Busy: busy(before.core0, after.core0),
    core1Busy: busy(before.core1, after.core1),
    stolen: before.machine === undefined || after.machine === undefined || after.machine.all === before.machine.all
      ? NaN
      : 100 * (after.machine.stolen - before.machine.stolen) / (after.machine.all - before.machine.all),
    loadAverage: os.loadavg()
  }
}

/** At or above this share of a core (%), wrk may have been the bottleneck of its run. */
export const WRK_SATURATED = 90

/** Whether wrk, not the server, may have set the run's rate. */
export const generatorBound = (run: WrkRun): boolean => run.wrkCpu >= WRK_SATURATED
