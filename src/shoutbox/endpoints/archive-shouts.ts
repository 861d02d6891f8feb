import { Api, NotFound, Successful, TooManyRequests, type PublicCall } from '../../sdk/index.js'
import { ARCHIVE_ANSWER, archivePage } from '../archive-page.js'
import { GENERAL_ROOM_SLUG, Rooms } from '../rooms.js'
import { ArchiveSchema } from '../schemas.js'

/**
 * GET /api/shoutbox/archive?room=&before=&limit=&q= — public: every shout ever kept in a
 * room (the default room unless `room` names another the caller may read), newest
 * first, a page at a time. The cursor is an id, so a walk page by page sees each shout
 * once even while new ones arrive (they are newer than the walk). `next` is the `before`
 * of the following page, or null after the last one. A search's page may hold fewer
 * shouts than `limit` and still have a `next`: a search spends a bounded time, then says
 * where it stopped (see `shoutsRepository.search`). A client runs at most
 * SEARCHES_PER_CLIENT searches at once, the process SEARCHES_AT_ONCE (see searches.ts).
 */
export class ArchiveShouts extends Api<typeof ArchiveSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/archive'
  readonly schema = ArchiveSchema
  override readonly readsSession = true
  override readonly answers = { ok: ARCHIVE_ANSWER, errors: [NotFound, TooManyRequests] }

  async handle ({ ctx, query, ip, user, viewer }: PublicCall<typeof ArchiveSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(query.room ?? GENERAL_ROOM_SLUG, viewer)
    return new Successful({ ...await archivePage(ctx, room, query, ip, user) })
  }
}

