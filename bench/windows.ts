/**
 * Alternating windows within one run: the publisher publishes in every other window of a
 * fixed length after an anchor (bench/publisher.ts, `windows`), the load generator counts
 * the list's answers by when they came (bench/load.ts, `bucketMs`), and the alternating
 * part (bench/run.ts) divides the list's rate in the publishing windows by its rate in the
 * quiet ones. Both kinds of window share the run's machine, a second apart, so a slow
 * spell of this shared machine weighs on both rather than on one side.
 */

export interface Windows {
  /** When the first window starts, in epoch milliseconds; it is quiet, the next publishing, and so on. */
  readonly anchor: number
  readonly windowMs: number
}

/** Whether epoch time `t` falls where publishes go out: before the anchor (the lead-in), or in an odd window after it. */
export function publishing ({ anchor, windowMs }: Windows, t: number): boolean {
  return t < anchor || Math.floor((t - anchor) / windowMs) % 2 === 1
}

/** Milliseconds of publishing time between epoch times `from` and `to`. */
export function publishingMs (windows: Windows, from: number, to: number): number {
  let total = 0
  // A run holds tens of windows: step through them.
  for (let t = from; t < to;) {
    const next = t < windows.anchor
      ? Math.min(to, windows.anchor)
      : Math.min(to, windows.anchor + (Math.floor((t - windows.anchor) / windows.windowMs) + 1) * windows.windowMs)
    if (publishing(windows, t)) total += next - t
    t = next
  }
  return total
}

/** Answers counted in buckets of `bucketMs` of the wall clock, from `start` (epoch ms): bench/load.ts's `buckets`. */
export interface Buckets {
  readonly start: number
  readonly counts: readonly number[]
}

/** The list's answers a second in the publishing windows and in the quiet ones, and how many windows of each were counted. */
export interface WindowedRates {
  readonly busy: number
  readonly idle: number
  readonly busyWindows: number
  readonly idleWindows: number
}

/**
 * The list's rate in the publishing and in the quiet windows after the anchor. The first
 * `settleMs` of every window are left out (the publishes of the window before still being
 * answered, or the first of this one starting), and so are the run's first and last
 * buckets (connections opening, the run cut short). `bucketMs` must divide `windowMs`.
 */
export function windowedRates (buckets: Buckets, bucketMs: number, windows: Windows, settleMs: number): WindowedRates {
  if (windows.windowMs % bucketMs !== 0) throw new Error(`buckets of ${bucketMs} ms do not divide windows of ${windows.windowMs} ms`)
  const answers = { busy: 0, idle: 0 }
  const counted = { busy: 0, idle: 0 }
  const seen = { busy: new Set<number>(), idle: new Set<number>() }
  buckets.counts.forEach((count, i) => {
    if (i === 0 || i === buckets.counts.length - 1) return
    const since = buckets.start + i * bucketMs - windows.anchor
    if (since < 0 || since % windows.windowMs < settleMs) return
    const window = Math.floor(since / windows.windowMs)
    const kind = window % 2 === 1 ? 'busy' : 'idle'
    answers[kind] += count
    counted[kind]++
    seen[kind].add(window)
  })
  const perSecond = (kind: 'busy' | 'idle'): number => counted[kind] === 0 ? NaN : answers[kind] / (counted[kind] * bucketMs / 1000)
  return { busy: perSecond('busy'), idle: perSecond('idle'), busyWindows: seen.busy.size, idleWindows: seen.idle.size }
}
