import http from 'node:http'

export interface SseEvent {
  readonly id?: string
  readonly event: string
  readonly data: string
}

export interface SseClient {
  readonly events: SseEvent[]
  /** Resolves with the first event (from the start of the stream) that matches. */
  next (predicate: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>
  readonly status: Promise<number>
  /** Resolves when the server ends the stream (or the connection is lost). */
  readonly ended: Promise<void>
  close (): void
}

/**
 * A minimal EventSource over node:http, for tests and the benchmark. `presence` frames
 * (who is here: no id, sent whenever a beat of the process falls) are left out unless
 * `presence` is asked for, so a test's list of events does not depend on when one falls.
 */
export function connectSse (url: string, headers: Record<string, string> = {}, { presence = false }: { presence?: boolean } = {}): SseClient {
  const events: SseEvent[] = []
  const waiters = new Set<() => void>()
  let resolveStatus!: (status: number) => void
  const status = new Promise<number>(resolve => { resolveStatus = resolve })
  let resolveEnded!: () => void
  const ended = new Promise<void>(resolve => { resolveEnded = resolve })
  const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, response => {
    resolveStatus(response.statusCode ?? 0)
    response.on('end', resolveEnded)
    response.on('close', resolveEnded)
    response.setEncoding('utf8')
    let buffer = ''
    response.on('data', (chunk: string) => {
      buffer += chunk
      let end
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const fields: Record<string, string> = {}
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue
          const colon = line.indexOf(':')
          if (colon === -1) continue
          fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '')
        }
        if (fields.data === undefined && fields.event === undefined) continue
        if (fields.event === 'presence' && !presence) continue
        events.push({ ...(fields.id === undefined ? {} : { id: fields.id }), event: fields.event ?? 'message', data: fields.data ?? '' })
        for (const wake of waiters) wake()
      }
    })
  })
  request.on('error', resolveEnded)
  return {
    events,
    status,
    ended,
    next (predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = events.find(predicate)
          if (found === undefined) return false
          waiters.delete(wake)
          clearTimeout(timer)
          resolve(found)
          return true
        }
        const wake = (): void => { check() }
        // A limit on the wait, not a wait: the event wakes it at once.
        const timer = setTimeout(() => {
          waiters.delete(wake)
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`))
        }, timeoutMs)
        waiters.add(wake)
        check()
      })
    },
    close () {
      request.destroy()
    }
  }
}
