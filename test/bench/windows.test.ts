/**
 * The alternating part's arithmetic (bench/windows.ts): which moments publish, how long
 * a run published, and which of the list's answers count as busy or idle. A slip here
 * would print a plausible ratio of the wrong seconds, which no benchmark run would show.
 */
import t from 'tap'
import { publishing, publishingMs, windowedRates } from '../../bench/windows.js'

const windows = { anchor: 10_000, windowMs: 1000 }

t.test('publishes through the lead-in, then in every other window, the first after the anchor quiet', async t => {
  t.equal(publishing(windows, 9_999), true, 'lead-in')
  t.equal(publishing(windows, 10_000), false, 'first window: quiet')
  t.equal(publishing(windows, 10_999), false)
  t.equal(publishing(windows, 11_000), true, 'second window: publishing')
  t.equal(publishing(windows, 11_999), true)
  t.equal(publishing(windows, 12_000), false)
  t.equal(publishing(windows, 13_500), true)
})

t.test('publishing time counts the lead-in and the publishing windows only', async t => {
  t.equal(publishingMs(windows, 8_000, 10_000), 2_000, 'all lead-in')
  t.equal(publishingMs(windows, 8_000, 14_000), 2_000 + 2_000, 'lead-in, then windows 2 and 4 of 4')
  t.equal(publishingMs(windows, 10_500, 11_250), 250, 'a quiet half window, then a quarter of a publishing one')
  t.equal(publishingMs(windows, 11_200, 11_200), 0, 'nothing between a moment and itself')
})

t.test('answers count by window, leaving out each window\'s settling start and the run\'s first and last buckets', async t => {
  // Buckets of 100 ms from 9,800: two before the anchor, then windows 0 (quiet), 1 (busy), 2 (quiet), 3 (busy).
  const counts = [
    999, 999, // before the anchor: left out
    ...[5, 5, 10, 10, 10, 10, 10, 10, 10, 10], // window 0, quiet: its first two buckets settle
    ...[5, 5, 8, 8, 8, 8, 8, 8, 8, 8], // window 1, busy
    ...[5, 5, 10, 10, 10, 10, 10, 10, 10, 10], // window 2, quiet
    ...[5, 5, 8, 8, 8, 8, 8, 8, 8, 777] // window 3, busy: its last bucket is the run's, left out
  ]
  const rates = windowedRates({ start: 9_800, counts }, 100, windows, 200)
  t.equal(rates.idle, 100, '10 answers a bucket of 100 ms')
  t.equal(rates.busy, 80, '8 answers a bucket of 100 ms')
  t.equal(rates.idleWindows, 2)
  t.equal(rates.busyWindows, 2)
})

t.test('the first bucket is left out even after the anchor (the connections opening)', async t => {
  const rates = windowedRates({ start: 10_500, counts: [1_000, 10, 10, 10, 10] }, 100, windows, 200)
  t.equal(rates.idle, 100)
  t.ok(Number.isNaN(rates.busy), 'no busy window counted: NaN, not 0')
})

t.test('buckets that do not divide the windows are refused', async t => {
  t.throws(() => windowedRates({ start: 10_000, counts: [1, 2, 3] }, 300, windows, 200), /do not divide/)
})
