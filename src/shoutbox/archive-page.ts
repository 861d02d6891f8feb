import { okAnswer, type AddonContext, type SessionUser } from '../sdk/index.js'
import { ignoredBy } from './ignores.js'
import { assertStorable } from './message.js'
import { withReactions } from './reactions.js'
import type { Room } from './rooms.js'
import { NewestShoutsSchema, NextPageSchema, ROOM_SHOUT_EXAMPLE, type FullShout } from './schemas.js'
import { Searches } from './searches.js'
import { shoutsRepository } from './shouts-repository.js'

/* A page of a room's archive, whichever path asks (`/api/shoutbox/archive?room=`, `/api/shoutbox/rooms/:slug/shouts`). */

/** A page of the archive as answered: the shouts, newest first, and the `before` of the next page (null after the last). */
export interface ArchivePage {
  readonly shouts: FullShout[]
  readonly next: number | null
}

/** What the archive's page, or a room's, reads. */
export interface PageQuery {
  readonly before?: string | undefined
  readonly limit: number
  readonly q?: string | undefined
  /** `show`: keep the shouts of accounts the viewer ignores. */
  readonly ignored?: string | undefined
}

export const ARCHIVE_ANSWER = okAnswer({ shouts: NewestShoutsSchema, next: NextPageSchema }, { shouts: [ROOM_SHOUT_EXAMPLE], next: 42 })

/** A page of `room`'s archive, for the client at `ip` (whose searches are counted), signed in as `viewer` or not (their own reactions are marked). */
export async function archivePage (ctx: AddonContext, room: Room, query: PageQuery, ip: string, viewer: SessionUser | null): Promise<ArchivePage> {
  const { limit } = query
  const before = query.before === undefined ? undefined : Number(query.before)
  const q = query.q === undefined || query.q.trim() === '' ? undefined : query.q
  if (q !== undefined) assertStorable(q, 'querystring/q')
  const excludeAuthors = query.ignored === 'show' ? [] : await ignoredBy(ctx, viewer)
  const shouts = shoutsRepository(ctx.db)
  // One more than the page: whether it exists decides `next`. A search may stop early, and says where.
  const { shouts: found, searchedTo } = q === undefined
    ? { shouts: await shouts.archive({ room, before, limit: limit + 1, excludeAuthors }), searchedTo: null }
    : await Searches.of(ctx).run(ip, () => shouts.search({ room, before, limit: limit + 1, q, excludeAuthors }))
  const page = found.slice(0, limit)
  return { shouts: await withReactions(ctx, page, viewer), next: found.length > limit ? page.at(-1)!.id : searchedTo }
}
