/**
 * Two builds of the host, one installation: the list (`maxShouts` 50 of 10,000) under
 * wrk's pinned load (bench/parts/wrk.ts), the builds in alternating order round by round,
 * each restarted with `--trace-gc` before its run. Printed for each run: requests a
 * second, the server's CPU and requests a second of it, the scavenges and full
 * collections during the run and what each scavenge kept (the old generation's growth);
 * then after / before, the medians of the rounds' ratios. A shared machine slows both
 * builds of a round alike, and what a scavenge keeps does not depend on it.
 *
 *   git archive <commit> | tar -x -C /tmp/before && (cd /tmp/before && ln -s "$PWD/node_modules" . && npm run build)
 *   npm run build && node --import tsx bench/compare-builds.ts --before /tmp/before/dist/host/server.js --rounds 3 --seconds 3 [--not-modified]
 */
import { createWriteStream } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { START_FLAGS } from '../test/helpers/start-flags.js'
import { log, median, node, root, sleep } from './parts/processes.js'
import { Site } from './parts/site.js'
import { WRK_INSTALL, wrk, wrkAvailable } from './parts/wrk.js'

const { values: options } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: path.join(root, 'dist/host/server.js') },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    'not-modified': { type: 'boolean', default: false }
  }
})
if (options.before === undefined) throw new Error('--before <path to the other build\'s dist/host/server.js>')
if (!await wrkAvailable()) throw new Error(`wrk is not installed (${WRK_INSTALL})`)
const builds = { before: options.before, after: options.after }
type Build = keyof typeof builds
const rounds = Number(options.rounds)
const seconds = Number(options.seconds)

interface Run { rate: number, perCpuSecond: number, scavenges: number, full: number, keptMB: number }

/** The site's host restarted from `script`, its GC trace written to `file`. */
async function startWith (site: Site, script: string, file: string): Promise<void> {
  await site.stop()
  site.child = node([...START_FLAGS, '--trace-gc', script, '--port', String(await site.port), '--host', '127.0.0.1'], { ...site.env, LOG_LEVEL: 'warn' }, 0)
  site.child.stdout!.pipe(createWriteStream(file))
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${await site.url()}/api/health`)).ok) return
    } catch {
      // not yet listening
    }
    await sleep(100)
  }
  throw new Error(`${script} did not start`)
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-compare-builds-'))
const site = new Site()
const runs: Record<Build, Run[]> = { before: [], after: [] }
try {
  await site.create()
  await site.seedTo(10_000)
  await site.api('PUT', '/api/panel/shoutbox/config', { maxShouts: 50 })
  for (let round = 1; round <= rounds; round++) {
    for (const which of (round % 2 === 1 ? ['before', 'after'] : ['after', 'before']) as Build[]) {
      const file = path.join(dir, `${which}-${round}.log`)
      await startWith(site, builds[which], file)
      const url = `${await site.url()}/api/shoutbox/list`
      const first = await fetch(url)
      await first.arrayBuffer()
      const headers: Record<string, string> = options['not-modified'] ? { 'if-none-match': first.headers.get('etag')! } : {}
      await wrk({ url, serverPid: site.child!.pid!, seconds: 2, headers })
      const mark = (await fs.readFile(file, 'utf8')).split('\n').length
      const run = await wrk({ url, serverPid: site.child!.pid!, seconds, headers })
      const lines = (await fs.readFile(file, 'utf8')).split('\n').slice(mark - 1)
      // "Scavenge 52.1 (89.2) -> 42.6 (89.2) MB": the heap after each; its growth from one to the next is what the scavenge kept.
      const after = lines.flatMap(line => { const m = /Scavenge [\d.]+ \([\d.]+\) -> ([\d.]+)/.exec(line); return m === null ? [] : [Number(m[1])] })
      const growth = after.slice(1).map((mb, i) => Math.max(0, mb - after[i]!))
      const measured: Run = {
        rate: run.requestsPerSecond,
        perCpuSecond: run.requestsPerSecond / (run.serverCpu / 100),
        scavenges: after.length,
        full: lines.filter(line => line.includes('Mark-Compact')).length,
        keptMB: growth.length === 0 ? 0 : growth.reduce((a, b) => a + b, 0) / growth.length
      }
      runs[which].push(measured)
      log(`round ${round}, ${which}: ${Math.round(measured.rate)} req/s, server ${Math.round(run.serverCpu)} % of a core, ${Math.round(measured.perCpuSecond)} a CPU second; ` +
        `${measured.scavenges} scavenges, ${measured.full} full collections, ${measured.keptMB.toFixed(2)} MB kept a scavenge; load average ${run.loadAverage.map(n => n.toFixed(2)).join(' ')}`)
    }
  }
  const ratio = (key: keyof Run): number => median(runs.after.map((run, i) => run[key] / runs.before[i]![key]))
  const mid = (which: Build, key: keyof Run): number => median(runs[which].map(run => run[key]))
  process.stdout.write(`${options['not-modified'] ? '304' : '200'}, ${rounds} rounds × ${seconds} s, medians — before: ${Math.round(mid('before', 'rate'))} req/s, ${Math.round(mid('before', 'perCpuSecond'))} a CPU second, ` +
    `${mid('before', 'keptMB').toFixed(2)} MB kept a scavenge; after: ${Math.round(mid('after', 'rate'))} req/s, ${Math.round(mid('after', 'perCpuSecond'))} a CPU second, ${mid('after', 'keptMB').toFixed(2)} MB kept a scavenge\n` +
    `after / before: rate ${ratio('rate').toFixed(2)}, per CPU second ${ratio('perCpuSecond').toFixed(2)}\n`)
} finally {
  await site.destroy()
  await fs.rm(dir, { recursive: true, force: true })
}
