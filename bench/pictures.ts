/**
 * The pictures part, on its own (`npm run build && node --import tsx bench/pictures.ts`):
 * a built host on fresh storage, one member; four 12-megapixel photos uploaded at once.
 * Reports each upload's time, the host process's CPU seconds for the four (per upload:
 * what one core spends on one), its resident memory above idle at its highest (sampled
 * every 10 ms), and the seed list's p99 while they are decoded against the same reads just
 * before (the ratio, in the same run). Idle is after setup and one small upload (sharp
 * loaded), settled for a second. Then the serving of one of them, against @fastify/static
 * serving the same bytes (see servingPart).
 */
import './parts/no-tap-timeout.js'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Tap } from '../test/helpers/types.js'
import sharp from 'sharp'
import { ADMIN } from '../test/helpers/app.js'
import { http, serverStorage, startServer } from '../test/helpers/server.js'
import { percentile } from './stats.js'
import { PIN, firstLine, freePort, median, node } from './parts/processes.js'
import { WRK_INSTALL, WRK_SATURATED, generatorBound, wrk, wrkAvailable, type WrkRun } from './parts/wrk.js'

/** The serving comparison's rounds and their length, s. */
const SERVE_ROUNDS = 3
const SERVE_SECONDS = 5

const teardowns: Array<() => unknown> = []
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn) } } as unknown as Tap

const TICKS = 100
function cpuSeconds (pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}
function rssMiB (pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(line?.[1] ?? 0) / 1024
}
const sleep = async (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

async function main (): Promise<void> {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const pid = server.child.pid!
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { maxUploadBytes: 20 * 1024 * 1024, maxShouts: 50 }, cookie: admin })
  for (let i = 0; i < 50; i++) await http(server, 'POST', '/api/panel/shoutbox', { body: { message: `shout ${i}` }, cookie: admin })
  const upload = async (bytes: Buffer): Promise<{ ms: number, status: number, id: number | undefined }> => {
    const body = new FormData()
    body.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'photo.jpg')
    const started = performance.now()
    const response = await fetch(`${server.url}/api/shoutbox/uploads`, { method: 'POST', body, headers: { cookie: admin } })
    const answer = await response.json().catch(() => ({})) as { upload?: { id: number } }
    return { ms: performance.now() - started, status: response.status, id: answer.upload?.id }
  }
  // A phone's photo: 4000 × 3000, textured enough to weigh what one does.
  const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 18 } } })
    .blur(0.8).jpeg({ quality: 88 }).toBuffer()
  await upload(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } }).jpeg().toBuffer())
  await sleep(1000)
  const idle = rssMiB(pid)

  const listTimes = async (until: () => boolean): Promise<number[]> => {
    const times: number[] = []
    while (!until()) {
      const started = performance.now()
      await (await fetch(`${server.url}/api/shoutbox/list`)).arrayBuffer()
      times.push(performance.now() - started)
    }
    return times
  }
  // The list alone, for as long as the uploads will take (measured again below).
  const baselineEnd = performance.now() + 3000
  const baseline = await listTimes(() => performance.now() > baselineEnd)

  let done = false
  let peak = idle
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pid)) }, 10)
  const cpuBefore = cpuSeconds(pid)
  const started = performance.now()
  const during = listTimes(() => done)
  const uploads = await Promise.all([0, 1, 2, 3].map(async () => upload(photo)))
  const wall = performance.now() - started
  done = true
  const busy = await during
  const cpu = cpuSeconds(pid) - cpuBefore
  clearInterval(sampler)
  peak = Math.max(peak, rssMiB(pid))

  const result = {
    photo: { width: 4000, height: 3000, bytes: photo.length },
    statuses: uploads.map(u => u.status),
    uploadMs: uploads.map(u => Math.round(u.ms)),
    wallMs: Math.round(wall),
    cpuSecondsTotal: Number(cpu.toFixed(2)),
    cpuSecondsPerUpload: Number((cpu / uploads.length).toFixed(2)),
    rssIdleMiB: Math.round(idle),
    rssPeakMiB: Math.round(peak),
    rssAboveIdleMiB: Math.round(peak - idle),
    listP99Ms: { alone: Number(percentile(baseline, 99).toFixed(2)), duringUploads: Number(percentile(busy, 99).toFixed(2)) },
    listP99Ratio: Number((percentile(busy, 99) / percentile(baseline, 99)).toFixed(2)),
    listRequests: { alone: baseline.length, duringUploads: busy.length }
  }
  process.stdout.write(`${JSON.stringify({ ...result, serving: await servingPart(server, admin, uploads[0]!.id!) }, null, 2)}\n`)
}

/**
 * Serving: one of the photos, attached to a shout of the board's room, read by visitors
 * (`/uploads/<sha256>.webp`, as a page's <img> asks for it) with wrk on core 1, against
 * Fastify with @fastify/static serving the same file with the same headers, both on core 0,
 * in rounds whose order alternates. Without wrk, skipped with a line saying how to install it.
 */
async function servingPart (server: Awaited<ReturnType<typeof startServer>>, admin: string, id: number): Promise<Record<string, unknown>> {
  if (!await wrkAvailable()) return { skipped: `wrk is not installed (${WRK_INSTALL})` }
  const posted = await http(server, 'POST', '/api/shoutbox/rooms/general/shouts', { body: { message: 'The photo', uploads: [{ id, alt: 'A photo' }] }, cookie: admin })
  const url = ((posted.body as { shout?: { uploads?: Array<{ url: string }> } }).shout?.uploads ?? [])[0]?.url
  if (url === undefined) throw new Error(`the shout with the photo was not posted: ${JSON.stringify(posted.body)}`)
  const picture = Buffer.from(await (await fetch(`${server.url}${url}`)).arrayBuffer())
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-bench-static-'))
  fs.writeFileSync(path.join(dir, path.basename(url)), picture)
  const port = await freePort()
  const baseline = node(['--import', 'tsx', 'bench/static-server.ts', dir, String(port)], {}, 0)
  try {
    await firstLine(baseline)
    // The host on the servers' core too (every thread of it).
    if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.child.pid!)], { stdio: 'ignore' })
    const targets = {
      host: { url: `${server.url}${url}`, serverPid: server.child.pid! },
      static: { url: `http://127.0.0.1:${port}${url}`, serverPid: baseline.pid! }
    }
    for (const [which, target] of Object.entries(targets)) {
      const answer = await fetch(target.url)
      const bytes = Buffer.from(await answer.arrayBuffer())
      if (answer.status !== 200 || !bytes.equals(picture)) throw new Error(`${which} did not serve the picture: ${answer.status}, ${bytes.length} bytes`)
      await wrk({ ...target, seconds: 1 })
    }
    const runs: Record<'host' | 'static', WrkRun[]> = { host: [], static: [] }
    for (let round = 1; round <= SERVE_ROUNDS; round++) {
      for (const which of round % 2 === 1 ? ['host', 'static'] as const : ['static', 'host'] as const) runs[which].push(await wrk({ ...targets[which], seconds: SERVE_SECONDS }))
    }
    const mid = (which: 'host' | 'static', of: (run: WrkRun) => number): number => Number(median(runs[which].map(of)).toFixed(1))
    const perCpuSecond = (run: WrkRun): number => run.requestsPerSecond / (run.serverCpu / 100)
    return {
      pictureBytes: picture.length,
      rounds: SERVE_ROUNDS,
      secondsEach: SERVE_SECONDS,
      requestsPerSecond: { host: mid('host', run => run.requestsPerSecond), fastifyStatic: mid('static', run => run.requestsPerSecond) },
      ratio: Number(median(runs.host.map((run, i) => run.requestsPerSecond / runs.static[i]!.requestsPerSecond)).toFixed(2)),
      ratioPerCpuSecond: Number(median(runs.host.map((run, i) => perCpuSecond(run) / perCpuSecond(runs.static[i]!))).toFixed(2)),
      p99Ms: { host: mid('host', run => run.p99Ms), fastifyStatic: mid('static', run => run.p99Ms) },
      errors: { host: runs.host.reduce((n, run) => n + run.errors + run.badStatus, 0), fastifyStatic: runs.static.reduce((n, run) => n + run.errors + run.badStatus, 0) },
      serverCpuPercent: { host: mid('host', run => run.serverCpu), fastifyStatic: mid('static', run => run.serverCpu) },
      wrkCpuPercent: Math.max(...[...runs.host, ...runs.static].map(run => Math.round(run.wrkCpu))),
      generator: [...runs.host, ...runs.static].some(generatorBound) ? `wrk reached ${WRK_SATURATED} % of a core in some runs: those measure wrk` : 'wrk stayed short of a core in every run: not the bottleneck'
    }
  } finally {
    baseline.kill('SIGTERM')
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

try {
  await main()
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
