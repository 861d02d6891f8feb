/**
 * Where the host's list path spends its time: the host (started as `npm start` starts
 * it, pinned to core 0) under wrk's load (core 1) for `--seconds`, profiled with
 * `node --cpu-prof`, and the profile's heaviest functions printed, by self time and
 * including what they call, as shares of the samples taken while the load ran.
 *
 *   npm run build && node --import tsx bench/profile-list.ts --seconds 10
 *   node --import tsx bench/profile-list.ts --not-modified     # the 304 answer
 *   node --import tsx bench/profile-list.ts --flags=--prof      # other flags for the host
 *
 * The profile is kept (its path is printed) for Chrome's DevTools or `--top N`.
 */
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { log } from './parts/processes.js'
import { Site } from './parts/site.js'
import { WRK_INSTALL, wrk, wrkAvailable } from './parts/wrk.js'

const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    top: { type: 'string', default: '30' },
    'not-modified': { type: 'boolean', default: false },
    flags: { type: 'string', default: '' }
  }
})

interface ProfileNode { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }
interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number }

/** The profile's functions by self and inclusive time, in µs, over the samples taken from `fromUs` (the profile's clock). */
function summarise (profile: Profile, fromUs: number): { total: number, self: Map<string, number>, inclusive: Map<string, number> } {
  const byId = new Map(profile.nodes.map(n => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id)
  const name = (n: ProfileNode): string => {
    const url = n.callFrame.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')
    return `${n.callFrame.functionName === '' ? '(anonymous)' : n.callFrame.functionName}${url === '' ? '' : ` ${url}:${n.callFrame.lineNumber + 1}`}`
  }
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let total = 0
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    if (at < fromUs) return
    total += delta
    const own = name(byId.get(id)!)
    self.set(own, (self.get(own) ?? 0) + delta)
    const seen = new Set<string>()
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      const each = name(byId.get(node)!)
      if (seen.has(each)) continue
      seen.add(each)
      inclusive.set(each, (inclusive.get(each) ?? 0) + delta)
    }
  })
  return { total, self, inclusive }
}

if (!await wrkAvailable()) {
  log(`wrk is not installed (${WRK_INSTALL})`)
  process.exit(1)
}
const seconds = Number(options.seconds)
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-list-profile-'))
const site = new Site()
try {
  await site.create()
  await site.seedTo(10_000)
  await site.api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 })
  // Restarted with the profiler: the profile holds this run alone.
  await site.stop()
  process.env.BENCH_HOST_FLAGS = `--cpu-prof --cpu-prof-dir=${dir} ${options.flags}`
  await site.start()
  const url = `${await site.url()}/api/shoutbox/list`
  const first = await fetch(url)
  await first.arrayBuffer()
  const headers: Record<string, string> = options['not-modified'] ? { 'if-none-match': first.headers.get('etag')! } : {}
  await wrk({ url, serverPid: site.child!.pid!, seconds: 2, headers })
  const startedAt = Date.now()
  const run = await wrk({ url, serverPid: site.child!.pid!, seconds, headers })
  log(`${Math.round(run.requestsPerSecond)} req/s, server ${Math.round(run.serverCpu)} % of a core, wrk ${Math.round(run.wrkCpu)} %; ${Math.round(run.bytesPerResponse)} bytes a response; load average ${run.loadAverage.join(' ')}`)
  await site.stop()
  const file = (await fs.readdir(dir)).find(name => name.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error('the host wrote no profile')
  const profile = JSON.parse(await fs.readFile(path.join(dir, file), 'utf8')) as Profile
  // The samples from when the load began: the profile ends as the host stops, so counted back from its end by the wall clock.
  const endUs = profile.startTime + profile.timeDeltas.reduce((a, b) => a + b, 0)
  const { total, self, inclusive } = summarise(profile, endUs - (Date.now() - startedAt) * 1000)
  const top = (map: Map<string, number>): string => [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(options.top))
    .map(([name, us]) => `${(100 * us / total).toFixed(1).padStart(6)} %  ${name}`).join('\n')
  const perRequestUs = (share: number): string => (share * seconds * 1e6 / run.requests).toFixed(2)
  process.stdout.write(`profile: ${path.join(dir, file)}\n${fmtRate(run.requestsPerSecond)} req/s; ${perRequestUs(1)} µs of wall time a request\n\nself:\n${top(self)}\n\nincluding callees:\n${top(inclusive)}\n`)
} finally {
  await site.destroy()
}

function fmtRate (n: number): string {
  return Math.round(n).toLocaleString('en-US')
}
