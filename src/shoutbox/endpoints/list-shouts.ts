import { Api, StreamedList, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import { nextList } from '../changes/list.js'
import { CHANGED } from '../changes/notice.js'
import { SHOUT_EXAMPLE, ShoutSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * A list of more shouts than this is sent while it is read, a page at a time: the
 * process holds a page for the request, never the whole answer (a million shouts are
 * over 100 MB).
 */
export const LIST_PAGE = 5_000

/**
 * GET /api/shoutbox/list — public: the shouts, newest first, at most `maxShouts` of them.
 * The host keeps the answer and serves it from memory (`If-None-Match` gets a 304); each
 * change announced from any process is applied to it in place (`nextList`), and this
 * runs only when that cannot be done.
 *
 * A longer list (`maxShouts` over LIST_PAGE, or unset on a board of more shouts) is
 * neither kept nor made whole: it is streamed page by page, each page read from below
 * the last one's oldest id when the client has taken the one before. It is not a
 * snapshot: a shout deleted while the answer is under way may be in it or not; one
 * posted meanwhile is not (it is newer than the first page).
 */
export class ListShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/list'
  readonly schema = {}
  override readonly cache = { topic: CHANGED, update: nextList }
  // Sent as the kept answer's bytes (the host encodes it); a test checks them against this.
  override readonly answers = { ok: okAnswer({ shouts: Type.Array(ShoutSchema, { description: 'newest first' }) }, { shouts: [SHOUT_EXAMPLE] }) }

  async handle ({ ctx }: PublicCall): Promise<Successful | StreamedList> {
    const { maxShouts } = await ShoutboxSettings.of(ctx).current()
    const shouts = shoutsRepository(ctx.db)
    if (maxShouts !== null && maxShouts <= LIST_PAGE) return new Successful({ shouts: await shouts.list(maxShouts) })
    // One more than a page says whether there is more than a page.
    const first = await shouts.list(LIST_PAGE + 1)
    if (first.length <= LIST_PAGE) return new Successful({ shouts: first })
    first.pop()
    const wanted = maxShouts ?? Infinity
    return new StreamedList('shouts', async function * pages () {
      yield first
      let sent = first.length
      let before = first.at(-1)!.id
      while (sent < wanted) {
        const size = Math.min(wanted - sent, LIST_PAGE)
        const page = await shouts.list(size, before)
        if (page.length > 0) yield page
        if (page.length < size) return
        sent += page.length
        before = page.at(-1)!.id
      }
    })
  }
}
