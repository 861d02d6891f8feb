/**
 * Reads `read` every `everyMs` until `accept` holds; returns the last value and how long
 * it took, or `ms: Infinity` when it never held within `withinMs`. For what another
 * process (or the server under test) does in its own time: a test checks that it happens
 * and reports how long it took, never that it took less than some wall-clock time.
 */
export async function eventually<T> (read: () => T | Promise<T>, accept: (value: T) => boolean, withinMs = 15_000, everyMs = 10): Promise<{ value: T, ms: number }> {
  const start = Date.now()
  for (;;) {
    const value = await read()
    if (accept(value)) return { value, ms: Date.now() - start }
    if (Date.now() - start > withinMs) return { value, ms: Infinity }
    await new Promise(resolve => setTimeout(resolve, everyMs)) // between the tries
  }
}
