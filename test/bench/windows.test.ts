/**
 * The alternating part's arithmetic (bench/windows.ts): which moments publish, when the
 * next publish may go out, how long a run published, and which of the list's answers
 * count as busy or idle. A slip here would print a plausible ratio of the wrong seconds,
 * which no benchmark run would show.
 */
import t from 'tap'
import { nextPublishing, publishing, publishingMs, windowedRates } from '../../bench/windows.js'

const windows = { anchor: 10_000, windowMs: 1000 }

t.test('publishes through the lead-in, then in every other window, window 0 after the anchor idle', async t => {
  t.equal(publishing(windows, 9_999), true, 'lead-in')
  t.equal(publishing(windows, 10_000), false, 'window 0: idle')
  t.equal(publishing(windows, 10_999), false)
  t.equal(publishing(windows, 11_000), true, 'window 1: busy')
  t.equal(publishing(windows, 11_999), true)
  t.equal(publishing(windows, 12_000), false)
  t.equal(publishing(windows, 13_500), true)
})

t.test('after an idle moment, the next publish goes out at the start of the next busy window', async t => {
  t.equal(nextPublishing(windows, 9_000), 9_000, 'lead-in: at once')
  t.equal(nextPublishing(windows, 11_400), 11_400, 'busy: at once')
  t.equal(nextPublishing(windows, 10_000), 11_000, 'idle from its first moment')
  t.equal(nextPublishing(windows, 12_999.5), 13_000, 'idle to its last')
})

t.test('publishing time counts the lead-in and the busy windows only', async t => {
  t.equal(publishingMs(windows, 8_000, 10_000), 2_000, 'all lead-in')
  t.equal(publishingMs(windows, 8_000, 14_000), 2_000 + 2_000, 'lead-in, then windows 1 and 3 of 0 to 3')
  t.equal(publishingMs(windows, 10_500, 11_250), 250, 'half an idle window, then a quarter of a busy one')
  t.equal(publishingMs(windows, 11_200, 11_200), 0, 'nothing between a moment and itself')
})

const reading = { bucketMs: 100, settleMs: 200, warmUpMs: 0 }
/** Ten buckets of 100 ms: the first two settle, the other eight answer `rate` a second. */
const window = (rate: number): number[] => [999, 999, ...Array<number>(8).fill(rate / 10)]

t.test('each busy window is paired with the mean of the idle ones either side, leaving out each window\'s settling start', async t => {
  // Buckets of 100 ms from 9,800: two before the anchor, then windows 0 (idle), 1 (busy), 2 (idle), 3 (busy), 4 (idle), and a last bucket.
  const counts = [999, 999, ...window(100), ...window(80), ...window(120), ...window(90), ...window(60), 777]
  const rates = windowedRates({ start: 9_800, counts }, windows, reading)
  t.equal(rates.pairs, 2, 'windows 1 and 3, each with an idle window before and after')
  t.equal(rates.busy, (80 + 90) / 2)
  t.equal(rates.idle, ((100 + 120) / 2 + (120 + 60) / 2) / 2, 'a drift from 100 to 60 weighs on both sides')
})

t.test('a busy window without an idle one after it is not paired; the last bucket is left out', async t => {
  const counts = [...window(100), ...window(80), ...window(100), ...window(50).slice(0, 5)]
  const rates = windowedRates({ start: 10_000, counts }, windows, reading)
  t.equal(rates.pairs, 1)
  t.equal(rates.busy / rates.idle, 0.8)
})

t.test('the load\'s warm-up is left out, even after the anchor', async t => {
  // The load starts at 9,500, half a second before the anchor; its first second (to 10,500) answers little and does not count.
  const counts = [...[1, 1, 1, 1, 1], ...[1, 1, 1, 1, 1, 10, 10, 10, 10, 10], ...window(80), ...window(100), 0]
  const rates = windowedRates({ start: 9_500, counts }, windows, { ...reading, warmUpMs: 1_000 })
  t.equal(rates.pairs, 1)
  t.equal(rates.busy, 80)
  t.equal(rates.idle, 100, 'window 0 counted from 10,500 only')
})

t.test('the run\'s last bucket is left out, wherever it falls', async t => {
  // Window 2 (idle) ends the run with an outlying count in its last bucket, past its settling.
  const counts = [...window(100), ...window(80), ...window(100).slice(0, 9), 5_000]
  const rates = windowedRates({ start: 10_000, counts }, windows, reading)
  t.equal(rates.pairs, 1)
  t.equal(rates.idle, 100, 'the 5,000 is not counted')
})

t.test('a window of which less than half could be counted is not read', async t => {
  // Window 2 (idle) holds three counted buckets of eight before the run ends: window 1 has no idle neighbour after it.
  const counts = [...window(100), ...window(80), 999, 999, 10, 10, 10, 0]
  const rates = windowedRates({ start: 10_000, counts }, windows, reading)
  t.equal(rates.pairs, 0)
})

t.test('nothing to pair gives NaN, not a ratio of zeros', async t => {
  const rates = windowedRates({ start: 10_000, counts: window(100) }, windows, reading)
  t.equal(rates.pairs, 0)
  t.ok(Number.isNaN(rates.busy / rates.idle))
})

t.test('buckets that do not divide the windows, or that miss the anchor, are refused', async t => {
  t.throws(() => windowedRates({ start: 10_000, counts: [1, 2, 3] }, windows, { ...reading, bucketMs: 300 }), /do not divide/)
  t.throws(() => windowedRates({ start: 10_050, counts: [1, 2, 3] }, windows, reading), /not on an edge/)
})
