import { STREAMED_ANSWER, STREAMED_ARRAY } from './brands.js'

/**
 * An array written while it is read: its items come a batch at a time, and the next batch
 * is asked for only once the one before is on its way to the client. It may stand for any
 * value of a StreamedObject, at any depth. Each answer that writes it calls `batches` anew.
 */
export class StreamedArray {
  readonly [STREAMED_ARRAY] = true

  constructor (readonly batches: () => AsyncIterable<readonly unknown[]>) {}
}

/** Whether `value` is a StreamedArray, from this copy of the SDK or an addon's own. */
export function isStreamedArray (value: unknown): value is StreamedArray {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STREAMED_ARRAY] === true
}

/**
 * A JSON object some of whose values, at any depth, may be StreamedArrays. It is written
 * exactly as JSON.stringify would write it with each StreamedArray's items in its place.
 */
export type StreamedObject = Readonly<Record<string, unknown>>

/**
 * A successful answer `{"result":"ok", ...fields}` (HTTP 200) written while it is read: a
 * heavy answer. The host admits at most two at a time per client (more are answered 429
 * TOO_MANY_REQUESTS with Retry-After), writes each StreamedArray at the pace the client
 * reads, and ends the answer cut short (never completed, never a 500 after its head) when
 * a batch fails. It is never kept, and carries no ETag.
 */
export class StreamedAnswer {
  readonly [STREAMED_ANSWER] = true

  constructor (readonly fields: StreamedObject) {}
}

/** Whether `answer` is a StreamedAnswer, from this copy of the SDK or an addon's own. */
export function isStreamedAnswer (answer: unknown): answer is StreamedAnswer {
  return typeof answer === 'object' && answer !== null && (answer as Record<symbol, unknown>)[STREAMED_ANSWER] === true
}

/** The rows one keyset read gives at most, when the reader does not say. */
export const KEYSET_BATCH = 1000

export interface KeysetRead<Row, Key> {
  /** Up to `limit` rows after `after` in key order; from the first when `after` is undefined. */
  readonly read: (after: Key | undefined, limit: number) => Promise<readonly Row[]>
  /** The key of a row: the next read starts after the last row's. */
  readonly key: (row: Row) => Key
  /** A batch of rows as the array's items. */
  readonly items: (rows: readonly Row[]) => readonly unknown[] | Promise<readonly unknown[]>
  readonly batchSize?: number
}

/**
 * A StreamedArray read by keyset pagination: each batch is one short query for the rows
 * after the last one written, so no connection or transaction is held while the client
 * reads, and memory holds one batch. A batch shorter than asked for is the last.
 */
export function keysetArray<Row, Key> ({ read, key, items, batchSize = KEYSET_BATCH }: KeysetRead<Row, Key>): StreamedArray {
  return new StreamedArray(async function * batches () {
    let after: Key | undefined
    for (;;) {
      const rows = await read(after, batchSize)
      if (rows.length > 0) yield await items(rows)
      if (rows.length < batchSize) return
      after = key(rows.at(-1)!)
    }
  })
}
