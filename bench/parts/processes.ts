/**
 * What every part of the bench shares: the run's storage, processes pinned to a core,
 * their output read line by line, CPU and memory from /proc, and the autocannon load
 * (bench/load.ts) with the bare node:http server (bench/bare-server.ts) it is compared with.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Buckets } from '../windows.js'

export const root = fileURLToPath(new URL('../../', import.meta.url))

export const DATABASE_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
export const SETUP_TOKEN = 'benchmark-setup-token'
/** The hosts' address secret on PostgreSQL, where each process must be given one (32 characters or more). */
export const ADDRESS_SECRET = 'benchmark-address-secret-0123456789abcdef'
/** The first administrator; as a body it finishes setup (the hosts hold SETUP_TOKEN). */
export const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'benchmark password', setupToken: SETUP_TOKEN }

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
export const log = (line: string): void => { process.stderr.write(`# ${line}\n`) }
export const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

export async function freePort (): Promise<number> {
  return new Promise(resolve => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * Servers run on the first core and the load generator on the second (taskset), so a
 * comparison is not decided by where the scheduler happened to put each process.
 */
export const PIN = await new Promise<boolean>(resolve => {
  const probe = spawn('taskset', ['-c', '0', 'true'])
  probe.on('error', () => resolve(false))
  probe.on('exit', code => resolve(code === 0 && os.cpus().length >= 2))
})

/**
 * A node process, pinned to `core` when pinning works. Started through sh, which raises
 * its soft limit of open files to the hard one first: ten thousand streams are ten
 * thousand descriptors in the host (checked before the stream parts, see fanOut).
 */
export function node (args: string[], env: NodeJS.ProcessEnv = {}, core?: 0 | 1): ChildProcess {
  const command = [...(PIN && core !== undefined ? ['taskset', '-c', String(core)] : []), process.execPath, ...args]
  return spawn('/bin/sh', ['-c', 'ulimit -n "$(ulimit -H -n)" 2>/dev/null; exec "$@"', 'sh', ...command], {
    cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit']
  })
}

/** Resident memory of process `pid`, in MiB. */
export async function residentMiB (pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024
}

/** The soft limit of open files of process `pid` (Infinity where /proc cannot tell). */
export async function openFilesLimit (pid: number): Promise<number> {
  try {
    const soft = /^Max open files\s+(\S+)/m.exec(await fs.readFile(`/proc/${pid}/limits`, 'utf8'))?.[1]
    return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft)
  } catch {
    return Infinity
  }
}

export function firstLine (child: ChildProcess): Promise<string> {
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

/** The lines a child prints, one per call, in order; rejects once it has closed its output. */
export function lines (child: ChildProcess): () => Promise<string> {
  const ready: string[] = []
  const waiting: Array<{ resolve: (line: string) => void, reject: (error: Error) => void }> = []
  let text = ''
  let closed: Error | undefined
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    text += chunk
    let end
    while ((end = text.indexOf('\n')) !== -1) {
      const line = text.slice(0, end)
      text = text.slice(end + 1)
      const waiter = waiting.shift()
      if (waiter === undefined) ready.push(line)
      else waiter.resolve(line)
    }
  })
  child.once('close', code => {
    closed = new Error(`exited with ${code} before answering`)
    for (const waiter of waiting.splice(0)) waiter.reject(closed)
  })
  return () => {
    if (ready.length > 0) return Promise.resolve(ready.shift()!)
    if (closed !== undefined) return Promise.reject(closed)
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }))
  }
}

/** CPU time of process `pid` (user and system, ms) from /proc; 0 for a process gone. */
export async function cpuMs (pid: number): Promise<{ user: number, system: number }> {
  try {
    const fields = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')
    const tick = 1000 / 100 // USER_HZ
    return { user: Number(fields[11]) * tick, system: Number(fields[12]) * tick }
  } catch {
    return { user: 0, system: 0 }
  }
}

export interface Load {
  /** The answers by when they came, when the job asked for them (`bucketMs`). */
  buckets?: Buckets
  requestsPerSecond: number, total: number, sent: number, p50: number, p99: number, non2xx: number, errors: number, timeouts: number, status2xx: number
  /** The share of this machine's CPU time (%) its hypervisor gave to others during the run (steal, /proc/stat); NaN where unknown. */
  stolen: number
}

export async function load (job: Record<string, unknown>): Promise<Load> {
  const child = node(['--import', 'tsx', 'bench/load.ts', JSON.stringify(job)], {}, 1)
  const measured = JSON.parse(await firstLine(child)) as Omit<Load, 'stolen'> & { stolen: number | null }
  return { ...measured, stolen: measured.stolen ?? NaN }
}

/** A run's rate and steal, for the logs. */
export const described = (which: string, run: Load): string => `${which} ${Math.round(run.requestsPerSecond)} (${Number.isNaN(run.stolen) ? '?' : run.stolen.toFixed(1)} % stolen)`

/** bench/bare-server.ts on the servers' core, answering every request with `status` (200 by default), `body` and `headers`. */
export async function startBareServer (body: string, headers: Record<string, string>, status = 200): Promise<{ port: number, pid: number, stop: () => void }> {
  const file = path.join(os.tmpdir(), `shoutbox-bench-body-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  await fs.writeFile(file, JSON.stringify({ body, headers, status }))
  const port = await freePort()
  const bare = node(['--import', 'tsx', 'bench/bare-server.ts', file, String(port)], {}, 0)
  try {
    await firstLine(bare)
  } finally {
    await fs.rm(file, { force: true })
  }
  return { port, pid: bare.pid!, stop: () => bare.kill('SIGTERM') }
}
