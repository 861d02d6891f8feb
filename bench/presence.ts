/**
 * The presence part's load and figures (run by bench/run.ts): readers joining and leaving
 * rooms (bench/presence-churn.ts, a process on the load generator's core) while the
 * board's stream readers (bench/subscribers.ts) count the `presence` frames they hear.
 */
import os from 'node:os'
import type { CountedEvents, SubscribersResult } from './subscribers.js'
import type { ChurnResult } from './presence-churn.js'
import { lines, log, node, sleep } from './parts/processes.js'
import type { Site } from './parts/site.js'

export type { ChurnResult }

/** Readers joining (and as many leaving) a second; how long each stays; the rooms they join, the board's own first. */
export const CHURN_PER_SECOND = 100
export const CHURN_HOLD_MS = 2000
export const CHURN_ROOMS = 3
/** The churn runs this long before the publishes, so they meet presence at its steady rate. */
export const CHURN_LEAD_MS = 5000
/** Presence is coalesced to one frame per room in this long (src/shoutbox/presence/presence.ts). */
export const FRAME_EVERY_S = 5

/** The rooms the churn joins: the board's default room, and rooms made for the part (made once). */
export async function churnRooms (site: Site): Promise<string[]> {
  const rooms = (await site.api('GET', '/api/panel/shoutbox/rooms')).json.rooms as Array<{ slug: string }>
  const slugs = [rooms[0]!.slug, ...Array.from({ length: CHURN_ROOMS - 1 }, (_, i) => `presence-${i + 2}`)]
  for (const slug of slugs.slice(1)) {
    if (rooms.some(room => room.slug === slug)) continue
    const made = await site.api('POST', '/api/panel/shoutbox/rooms', { slug, name: `Presence ${slug.slice(9)}` })
    if (made.status !== 200) throw new Error(`could not make ${slug}: ${JSON.stringify(made.json)}`)
  }
  return slugs
}

/**
 * The churn as a fan-out's background load: `start` starts the process and waits until
 * its first reader has joined and CHURN_LEAD_MS more; `stop` stops it and keeps its figures.
 */
export function churning (streamUrl: string, rooms: readonly string[], results: ChurnResult[], maxSeconds: number): { start: () => Promise<void>, stop: () => Promise<void> } {
  let child: ReturnType<typeof node> | undefined
  let next: (() => Promise<string>) | undefined
  return {
    async start () {
      child = node(['--import', 'tsx', 'bench/presence-churn.ts', JSON.stringify({ url: streamUrl, rooms, perSecond: CHURN_PER_SECOND, holdMs: CHURN_HOLD_MS, maxSeconds })], {}, 1)
      next = lines(child)
      if (await next() !== 'started') throw new Error('the churn did not start')
      await sleep(CHURN_LEAD_MS)
    },
    async stop () {
      try {
        child!.stdin!.write('stop\n')
        results.push(JSON.parse(await next!()) as ChurnResult)
      } finally {
        if (child!.exitCode === null) child!.kill('SIGTERM')
      }
    }
  }
}

/** About how long the churn's process takes to start (node and tsx) and its first reader to join. */
const CHURN_START_MS = 1500

/**
 * The quiet board's stand-in for the churn: the same wait before the publishes and nothing
 * else, so that the readers' own joining has been told (its frames go out within 5 s) in
 * both runs alike before the publishes.
 */
export function quietLead (): { start: () => Promise<void>, stop: () => Promise<void> } {
  return { start: () => sleep(CHURN_START_MS + CHURN_LEAD_MS), stop: async () => {} }
}

/** What one fan-out of the part read besides its delivery times. */
export interface PresenceReading {
  readonly counted: CountedEvents
  /** How long the frames were counted, s. */
  readonly seconds: number
  /** The subscriber processes' CPU over the counting, % of a core: the busiest, and all of them together. */
  readonly busiestClientCpu: number
  readonly clientsCpu: number
  /** Core 1 (the load generator's) busy over the publishing, %; the load average at the end. */
  readonly loadCoreBusy: number
  readonly loadAverage: readonly number[]
}

type Ticks = { all: number, idle: number } | undefined

/** One fan-out's reading from its subscriber processes' results, over `ms` of counting: their CPU and core 1's ticks before and after. */
export function presenceReading (results: readonly SubscribersResult[], ms: number, before: ReadonlyArray<{ user: number, system: number }>, after: ReadonlyArray<{ user: number, system: number }>,
  core1Before: Ticks, core1After: Ticks): PresenceReading {
  const byRoom: Record<string, number> = {}
  for (const result of results) for (const [room, n] of Object.entries(result.counted?.byRoom ?? {})) byRoom[room] = (byRoom[room] ?? 0) + n
  const cpu = after.map((each, i) => 100 * (each.user + each.system - before[i]!.user - before[i]!.system) / ms)
  return {
    counted: {
      perReader: results.flatMap(result => result.counted?.perReader ?? []),
      mostOfOneRoom: Math.max(0, ...results.map(result => result.counted?.mostOfOneRoom ?? 0)),
      byRoom,
      closestMs: results.reduce<number | null>((least, result) => {
        const closest = result.counted?.closestMs ?? null
        return closest === null ? least : least === null ? closest : Math.min(least, closest)
      }, null)
    },
    seconds: ms / 1000,
    busiestClientCpu: Math.max(0, ...cpu),
    clientsCpu: cpu.reduce((a, b) => a + b, 0),
    loadCoreBusy: core1Before === undefined || core1After === undefined || core1After.all === core1Before.all
      ? NaN
      : 100 * (1 - (core1After.idle - core1Before.idle) / (core1After.all - core1Before.all)),
    loadAverage: os.loadavg()
  }
}

const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—'

/** Frames a reader a second, of all the rooms it hears and of the busiest room: medians over the readers. */
export function framesPerReader (reading: PresenceReading): { all: number, mostOfOneRoom: number, heardRooms: number } {
  const sorted = [...reading.counted.perReader].sort((a, b) => a - b)
  const median = sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!
  return {
    all: median / reading.seconds,
    mostOfOneRoom: reading.counted.mostOfOneRoom / reading.seconds,
    heardRooms: Object.keys(reading.counted.byRoom).length
  }
}

/** The part's rows about presence frames, the load generator and the machine. */
export function presenceNotes (quiet: PresenceReading[], churn: PresenceReading[], churns: ChurnResult[], rooms: readonly string[]): string[] {
  // A window of w seconds can hold ⌊w / 5⌋ + 1 frames of a room coalesced as it should be.
  const per = (readings: PresenceReading[]): string => readings.map(reading => {
    const { all, mostOfOneRoom, heardRooms } = framesPerReader(reading)
    return `${fmt(all, 2)} in all (the median reader), ${fmt(mostOfOneRoom, 2)} of one room at the most (any reader; ${heardRooms} rooms framed; ${fmt(reading.seconds, 1)} s counted, which may hold ${Math.floor(reading.seconds / FRAME_EVERY_S) + 1} frames a room)`
  }).join('; ')
  // Measured at arrival: a frame delivered late, or written after a slower beat, shortens the gap a little.
  const closest = (readings: PresenceReading[]): string => readings.map(reading => reading.counted.closestMs === null ? 'none' : `${fmt(reading.counted.closestMs / 1000, 2)} s`).join(', ')
  const notes = [
    `  presence frames a reader a second (the readers hear every room and show the first, as the widget does) while ${CHURN_PER_SECOND} readers a second join and leave (${CHURN_HOLD_MS / 1000} s each, across ${rooms.length} rooms: ${rooms.join(', ')}), by round: ${per(churn)} ` +
      `— target ≤ ${fmt(1 / FRAME_EVERY_S, 1)} in all; the closest two frames of one room at one reader, by round: ${closest(churn)} (coalesced to ${FRAME_EVERY_S} s, less the beats' and deliveries' jitter)`,
    `  the quiet board's readers, by round: ${per(quiet)}; the closest two frames of one room: ${closest(quiet)}`,
    `  the churn: ${churns.map(run => `${run.joined} joined, ${run.left} left, ${run.failed} failed, ${fmt(run.joinsPerSecond, 1)} joins/s, at most ${run.mostOpen} open`).join('; ')}`
  ]
  const all = [...quiet, ...churn]
  const most = (values: number[]): number => Math.max(...values)
  const busiest = most([...all.map(reading => reading.busiestClientCpu), ...churns.map(run => run.cpuPercent)])
  // The clients share core 1: all of them together (the churn's beside the churning runs') against one core.
  const together = most([...quiet.map(reading => reading.clientsCpu), ...churn.map((reading, i) => reading.clientsCpu + (churns[i]?.cpuPercent ?? 0))])
  notes.push(`  load generator (core 1): busiest subscriber process ${fmt(most(all.map(reading => reading.busiestClientCpu)))} % of a core, the churn's ${fmt(most(churns.map(run => run.cpuPercent)))} %, ` +
    `all client processes together at most ${fmt(together)} %; core 1 busy ${fmt(Math.min(...all.map(reading => reading.loadCoreBusy)))}–${fmt(most(all.map(reading => reading.loadCoreBusy)))} % — ` +
    `${busiest >= 90 || together >= 90 ? 'the clients were at or above 90 % of a core: they may have set the delivery times' : 'the clients stayed under 90 % of a core: not the bottleneck'}` +
    `${most(all.map(reading => reading.loadCoreBusy)) >= 95 ? ' (what else kept core 1 busy was other work on the machine)' : ''}; ` +
    `load average (1 min) ${fmt(Math.min(...all.map(reading => reading.loadAverage[0]!)), 2)}–${fmt(Math.max(...all.map(reading => reading.loadAverage[0]!)), 2)} over the runs (${os.cpus().length} cores)`)
  log(notes.join('\n# '))
  return notes
}
