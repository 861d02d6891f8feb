/**
 * Busy and idle windows within one run: the publisher publishes in every other window of
 * a fixed length after an anchor (bench/publisher.ts, `windows`), the load generator
 * counts the list's answers by when they came (bench/load.ts, `bucketMs`), and the
 * alternating part (bench/run.ts) divides the list's rate in the busy windows by its rate
 * in the idle windows on either side. Both kinds share the run's machine, a second
 * apart, so a slow spell of this shared machine weighs on both rather than on one side.
 *
 * Busy: a window whose publishes go out; idle: one where the publisher sleeps.
 */

export interface Windows {
  /** When the first window starts, in epoch milliseconds; it is idle, the next busy, and so on. */
  readonly anchor: number
  readonly windowMs: number
}

/** Whether epoch time `t` falls where publishes go out: before the anchor (the lead-in), or in a busy (odd) window after it. */
export function publishing ({ anchor, windowMs }: Windows, t: number): boolean {
  return t < anchor || Math.floor((t - anchor) / windowMs) % 2 === 1
}

/** Where the stretch holding epoch time `t` ends: the anchor for the lead-in, else the end of its window. */
function stretchEnd ({ anchor, windowMs }: Windows, t: number): number {
  return t < anchor ? anchor : anchor + (Math.floor((t - anchor) / windowMs) + 1) * windowMs
}

/** The first moment at or after epoch time `t` when publishes go out: `t` itself, or the start of the next busy window. */
export function nextPublishing (windows: Windows, t: number): number {
  return publishing(windows, t) ? t : stretchEnd(windows, t)
}

/** Milliseconds between epoch times `from` and `to` when publishes go out: the lead-in's and the busy windows'. */
export function publishingMs (windows: Windows, from: number, to: number): number {
  let total = 0
  // A run holds tens of windows: step through them.
  for (let t = from; t < to;) {
    const next = Math.min(to, stretchEnd(windows, t))
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

/** How the buckets are read: see `windowedRates`. */
export interface Reading {
  readonly bucketMs: number
  /** The start of every window left out: the window before still winding down. */
  readonly settleMs: number
  /** The start of the load left out: its connections opening, its code warming. */
  readonly warmUpMs: number
}

/** The list's answers a second in the busy windows and in the idle windows beside them, and how many busy windows were paired. */
export interface WindowedRates {
  readonly busy: number
  readonly idle: number
  readonly pairs: number
}

/**
 * The list's rate in the busy windows after the anchor, and in the idle windows on either
 * side of each: every busy window with an idle one counted before and after it is paired
 * with their mean, so a rate that drifts through the run weighs on both sides alike. Left
 * out: the first `settleMs` of every window, the load's first `warmUpMs`, its last bucket
 * (the run cut short), anything before the anchor (the lead-in), and a window of which
 * less than half could be counted. The anchor must fall on a bucket's edge, and
 * `bucketMs` must divide `windowMs`.
 */
export function windowedRates (buckets: Buckets, windows: Windows, { bucketMs, settleMs, warmUpMs }: Reading): WindowedRates {
  if (windows.windowMs % bucketMs !== 0) throw new Error(`buckets of ${bucketMs} ms do not divide windows of ${windows.windowMs} ms`)
  if ((windows.anchor - buckets.start) % bucketMs !== 0) throw new Error(`the anchor ${windows.anchor} is not on an edge of the buckets from ${buckets.start}`)
  /** By window index: the answers counted in it and over how many milliseconds. */
  const counted = new Map<number, { answers: number, ms: number }>()
  buckets.counts.forEach((count, i) => {
    const at = buckets.start + i * bucketMs
    const since = at - windows.anchor
    if (i === buckets.counts.length - 1 || at < buckets.start + warmUpMs || since < 0 || since % windows.windowMs < settleMs) return
    const index = Math.floor(since / windows.windowMs)
    const window = counted.get(index) ?? { answers: 0, ms: 0 }
    window.answers += count
    window.ms += bucketMs
    counted.set(index, window)
  })
  // A window cut short (by the warm-up, or the run's end) is read only if at least half of what could be counted was.
  const enough = (windows.windowMs - settleMs) / 2
  const rate = (index: number): number | undefined => {
    const window = counted.get(index)
    return window === undefined || window.ms < enough ? undefined : window.answers / (window.ms / 1000)
  }
  const busy: number[] = []
  const idle: number[] = []
  for (const index of counted.keys()) {
    const [before, during, after] = [rate(index - 1), rate(index), rate(index + 1)]
    if (index % 2 === 0 || before === undefined || during === undefined || after === undefined) continue
    busy.push(during)
    idle.push((before + after) / 2)
  }
  const mean = (values: number[]): number => values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length
  return { busy: mean(busy), idle: mean(idle), pairs: busy.length }
}
