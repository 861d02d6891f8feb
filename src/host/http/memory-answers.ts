import type { IncomingMessage, ServerResponse } from 'node:http'

export interface MemoryAnswer {
  readonly body: Buffer
  readonly etag: string
  readonly headers: Readonly<Record<string, string>>
}

/**
 * Public GET answers that an addon holds in memory and keeps current itself (the
 * Shoutbox list). The host's HTTP server answers them before Fastify runs: a hit costs
 * what a bare node:http server costs. A miss — or anything else — goes to Fastify.
 */
export class MemoryAnswers {
  private readonly answers = new Map<string, { answer: MemoryAnswer, head: Record<string, string | number> }>()

  constructor (private readonly isOpen: () => boolean) {}

  remember (path: string, answer: MemoryAnswer): void {
    this.answers.set(path, {
      answer,
      head: {
        ...answer.headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': answer.body.length,
        etag: answer.etag,
        'x-content-type-options': 'nosniff'
      }
    })
  }

  forget (path: string): void {
    this.answers.delete(path)
  }

  /** True when it answered. */
  serve (request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET' || this.answers.size === 0) return false
    const url = request.url ?? ''
    const query = url.indexOf('?')
    const found = this.answers.get(query === -1 ? url : url.slice(0, query))
    if (found === undefined || !this.isOpen()) return false
    const ifNoneMatch = request.headers['if-none-match']
    if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, found.answer.etag)) {
      const { 'content-length': _, 'content-type': __, ...head } = found.head
      response.writeHead(304, head)
      response.end()
      return true
    }
    response.writeHead(200, found.head)
    response.end(found.answer.body)
    return true
  }
}

/** `If-None-Match` may list several tags, weak or strong, or `*`. */
export function matchesEtag (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some(tag => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`
  })
}
