import { isStreamedArray } from '../../sdk/index.js'

/**
 * `value` as JSON text, byte for byte as JSON.stringify would write it with each
 * StreamedArray's items in its place, in pieces: what is ready goes out before each
 * batch is asked for, and each batch goes out once read, so the writer holds one batch
 * and the client's reading paces the reads. A batch that fails throws here, after what
 * went before has gone: the text ends cut short.
 */
export async function * streamedJson (value: unknown): AsyncGenerator<string> {
  const out = { text: '' }
  yield * write(value, out)
  if (out.text !== '') yield out.text
}

async function * write (value: unknown, out: { text: string }): AsyncGenerator<string> {
  if (isStreamedArray(value)) {
    out.text += '['
    let first = true
    const batches = value.batches()[Symbol.asyncIterator]()
    try {
      for (;;) {
        if (out.text !== '') {
          yield out.text
          out.text = ''
        }
        const next = await batches.next()
        if (next.done === true) break
        if (next.value.length === 0) continue
        out.text += `${first ? '' : ','}${JSON.stringify(next.value).slice(1, -1)}`
        first = false
      }
    } finally {
      // The client gone: the batches' reader is told so and reads no more.
      await batches.return?.()
    }
    out.text += ']'
    return
  }
  if (!holdsStreamed(value)) {
    out.text += JSON.stringify(value)
    return
  }
  if (Array.isArray(value)) {
    out.text += '['
    for (const [i, item] of value.entries()) {
      if (i > 0) out.text += ','
      // As JSON.stringify writes what JSON cannot hold in an array.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out.text += 'null'
      else yield * write(item, out)
    }
    out.text += ']'
    return
  }
  out.text += '{'
  let first = true
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    // As JSON.stringify leaves out what JSON cannot hold in an object.
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue
    out.text += `${first ? '' : ','}${JSON.stringify(key)}:`
    first = false
    yield * write(field, out)
  }
  out.text += '}'
}

/** Whether a StreamedArray stands anywhere in `value` (a plain object or array; anything else is written by JSON.stringify). */
function holdsStreamed (value: unknown): boolean {
  if (isStreamedArray(value)) return true
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  if (Array.isArray(value)) return value.some(holdsStreamed)
  return Object.values(value).some(holdsStreamed)
}
