/**
 * The pictures part, on its own (`npm run build && node --import tsx bench/pictures.ts`):
 * a built host on fresh storage, one member; four 12-megapixel photos uploaded at once.
 * Reports each upload's time, the host process's CPU seconds for the four (per upload:
 * what one core spends on one), its resident memory above idle at its highest (sampled
 * every 10 ms), and the seed list's p99 while they are decoded against the same reads just
 * before (the ratio, in the same run). Idle is after setup and one small upload (sharp
 * loaded), settled for a second.
 */
import fs from 'node:fs'
import type { Tap } from '../test/helpers/types.js'
import sharp from 'sharp'
import { ADMIN } from '../test/helpers/app.js'
import { http, serverStorage, startServer } from '../test/helpers/server.js'
import { percentile } from './stats.js'

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
  const upload = async (bytes: Buffer): Promise<{ ms: number, status: number }> => {
    const body = new FormData()
    body.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'photo.jpg')
    const started = performance.now()
    const response = await fetch(`${server.url}/api/shoutbox/uploads`, { method: 'POST', body, headers: { cookie: admin } })
    await response.arrayBuffer()
    return { ms: performance.now() - started, status: response.status }
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
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}

try {
  await main()
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
