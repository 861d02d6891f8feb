import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { HeavyAnswers } from '../../../src/host/http/heavy-answers.js'
import { streamedJson } from '../../../src/host/http/streamed-json.js'
import { StreamedArray, TooManyRequests, keysetArray } from '../../../src/sdk/index.js'

/** The writer of heavy answers, and how many of them a client is sent at once. No database. */

const written = async (value: unknown): Promise<{ text: string, pieces: number }> => {
  let text = ''
  let pieces = 0
  for await (const piece of streamedJson(value)) {
    text += piece
    pieces++
  }
  return { text, pieces }
}

const batchesOf = (...batches: unknown[][]) => new StreamedArray(async function * () { yield * batches })

t.test('a document with streamed arrays is written byte for byte as JSON.stringify writes the whole', async t => {
  const streamed = {
    result: 'ok',
    skipped: undefined,
    when: new Date(0),
    export: {
      list: batchesOf([1, { a: 'é"\\' }], [], [null, [2]]),
      empty: batchesOf(),
      nested: [batchesOf(['x']), undefined, () => 1, 3],
      deep: { more: batchesOf([{ b: undefined, c: 'd' }]) },
      plain: { n: 1, s: 'two', no: null }
    }
  }
  const whole = {
    result: 'ok',
    skipped: undefined,
    when: new Date(0),
    export: {
      list: [1, { a: 'é"\\' }, null, [2]],
      empty: [],
      nested: [['x'], undefined, () => 1, 3],
      deep: { more: [{ b: undefined, c: 'd' }] },
      plain: { n: 1, s: 'two', no: null }
    }
  }
  t.equal((await written(streamed)).text, JSON.stringify(whole))
  t.equal((await written({ a: [1, 2] })).text, '{"a":[1,2]}', 'a plain document, as it is')
})

t.test('what is ready goes out before each batch is read; a failing batch ends the text after what went before', async t => {
  const reads: string[] = []
  const list = new StreamedArray(async function * () {
    reads.push('first')
    yield [1]
    reads.push('second')
    throw new Error('the batch could not be read')
  })
  const pieces: string[] = []
  await t.rejects(async () => {
    for await (const piece of streamedJson({ result: 'ok', list })) {
      pieces.push(piece)
      t.equal(reads.length, pieces.length - 1, 'a piece goes out before the next batch is read')
    }
  }, { message: 'the batch could not be read' })
  t.same(pieces, ['{"result":"ok","list":[', '1'])
})

t.test('keysetArray reads after the last key, until a short batch', async t => {
  const rows = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }))
  const asked: Array<number | undefined> = []
  const list = keysetArray<{ id: number }, number>({
    batchSize: 3,
    read: async (after, limit) => {
      asked.push(after)
      return rows.filter(row => row.id > (after ?? 0)).slice(0, limit)
    },
    key: row => row.id,
    items: batch => batch.map(row => row.id * 10)
  })
  t.equal((await written({ list })).text, '{"list":[10,20,30,40,50,60,70]}')
  t.same(asked, [undefined, 3, 6])
})

/** A response as far as HeavyAnswers sees it: it closes when told. */
const response = () => Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false }) as unknown as ServerResponse

t.test('two heavy answers at a time per client (an IPv6 client by its /64), a total per process; a closed answer frees its place', async t => {
  const heavy = new HeavyAnswers({ perClient: 2, total: 4 })
  const first = response()
  heavy.admit('203.0.113.7', first)
  heavy.admit('::ffff:203.0.113.7', response())
  t.throws(() => heavy.admit('203.0.113.7', response()), TooManyRequests, 'a third from the same address, written either way')
  heavy.admit('2001:db8:1:2::1', response())
  heavy.admit('2001:db8:1:2:ffff::9', response())
  t.throws(() => heavy.admit('2001:db8:1:2::3', response()), TooManyRequests, 'a third from the same /64')
  t.throws(() => heavy.admit('198.51.100.1', response()), TooManyRequests, 'a first from anyone once the process holds its total')
  first.emit('close')
  first.emit('close')
  t.equal(heavy.heldBy('203.0.113.7'), 1, 'a close frees one place, once')
  // A client gone before its answer was admitted: the place is freed at once.
  heavy.admit('198.51.100.1', Object.assign(response(), { destroyed: true }))
  await Promise.resolve()
  t.equal(heavy.heldBy('198.51.100.1'), 0)
  heavy.admit('198.51.100.1', response())
})
