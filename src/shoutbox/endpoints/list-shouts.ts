import { Api, StreamedList, Successful, TooManyRequests, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { nextList } from '../changes/list.js'
import { CHANGED } from '../changes/notice.js'
import { SHOUT_EXAMPLE, ShoutSchema, type Shout } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'

/** The shouts read at a time for a long list. */
export const LIST_PAGE = 5_000

/**
 * A list longer than this, encoded, is sent while it is read, a page at a time: the
 * process holds a page for the request, never the whole answer (a million shouts are
 * over 100 MB). A shorter one is one answer, which the host keeps (it keeps up to 1 MiB).
 */
export const LIST_STREAMED_BYTES = 1024 * 1024

/**
 * GET /api/shoutbox/list — public: the shouts, newest first, at most `maxShouts` of them.
 * The host keeps the answer and serves it from memory (`If-None-Match` gets a 304); each
 * change announced from any process is applied to it in place (`nextList`), and this
 * runs only when that cannot be done.
 *
 * A list of more than LIST_PAGE shouts is read a page at a time, by keyset (below the last
 * page's oldest id). Once the pages read pass LIST_STREAMED_BYTES it is neither kept nor
 * made whole: it is streamed, each next page read when the client has taken the one
 * before. A streamed list is not a snapshot: a shout deleted while the answer is under way
 * may be in it or not; one posted meanwhile is not (it is newer than the first page). It
 * is a heavy answer: a client may be sent two at a time, a third is answered 429.
 */
export class ListShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/list'
  readonly schema = {}
  override readonly cache = { topic: CHANGED, update: nextList }
  // Sent as the kept answer's bytes (the host encodes it); a test checks them against this.
  override readonly answers = { ok: okAnswer({ shouts: Type.Array(ShoutSchema, { description: 'newest first' }) }, { shouts: [SHOUT_EXAMPLE] }), errors: [TooManyRequests] }

  async handle ({ ctx }: PublicCall): Promise<Successful | StreamedList> {
    const { maxShouts } = await ShoutboxSettings.of(ctx).current()
    const shouts = shoutsRepository(ctx.db)
    const wanted = maxShouts ?? Infinity
    if (wanted <= LIST_PAGE) return new Successful({ shouts: await shouts.list(wanted) })
    /** The pages after `from`, read as they are asked for, until the list ends or has `wanted` shouts. */
    async function * pagesAfter (from: { count: number, before: number | undefined }): AsyncGenerator<Shout[]> {
      let { count, before } = from
      while (count < wanted) {
        const size = Math.min(wanted - count, LIST_PAGE)
        const page = await shouts.list(size, before)
        if (page.length > 0) yield page
        // A short page is the last: the next read would find nothing.
        if (page.length < size) return
        count += page.length
        before = page.at(-1)!.id
      }
    }
    const read: Shout[][] = []
    let bytes = 0
    const reading = { count: 0, before: undefined as number | undefined }
    for await (const page of pagesAfter(reading)) {
      read.push(page)
      reading.count += page.length
      reading.before = page.at(-1)!.id
      bytes += JSON.stringify(page).length
      if (bytes > LIST_STREAMED_BYTES) {
        // Each request that gets this answer reads the rest on its own, from here.
        const from = { ...reading }
        return new StreamedList('shouts', async function * pages () {
          yield * read
          yield * pagesAfter(from)
        })
      }
    }
    return new Successful({ shouts: read.flat() })
  }
}
