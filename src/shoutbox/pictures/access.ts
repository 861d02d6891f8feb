import type { AddonContext, PictureOwner, Viewer } from '../../sdk/index.js'
import { onChange } from '../changes/notice.js'
import { canRead, MANAGE_NODE, Rooms } from '../rooms.js'
import { SHOUTS_TABLE } from '../tables.js'
import { shaOf, showing } from './attachments.js'

/** Pictures whose answer to a visitor is kept at most; past it, all are forgotten and read again. */
const VISITOR_PICTURES_KEPT = 10_000

interface ShowingRow { room_id: number, state: string | null, author_id: number | null }

/**
 * Who may see a shout's picture, asked by the host before it serves one: whoever may read
 * a shout on the board that shows it (its room's `read`, through the one access policy);
 * a shout off the board (held, or hidden by reports) shows its pictures to staff, for the
 * review queue, and to its author, who sees it waiting — to nobody else. A deleted
 * shout shows nothing. A picture no shout shows is nobody's to see, its uploader's
 * included (until attached it is known by its id alone).
 */
export function shoutPictures (ctx: AddonContext): PictureOwner {
  // What a visitor may see, by picture, as last read: every picture of a page is asked for
  // by each of its visitors. Forgotten at every change of the board or of its rooms, from
  // any process (and when the notices had a gap), so it is never older than the board.
  const visitorSees = new Map<string, boolean>()
  let forgotten = 0
  const forget = (): void => {
    visitorSees.clear()
    forgotten++
  }
  onChange(ctx, forget)
  Rooms.of(ctx).onChange(forget)
  const read = async (sha256: string, viewer: Viewer): Promise<boolean> => {
    const rows: ShowingRow[] = await ctx.db(SHOUTS_TABLE).whereRaw('uploads @> ?::jsonb', [showing(sha256)]).whereNotNull('uploads')
      .select('room_id', 'state', 'author_id').limit(50)
    if (rows.length === 0) return false
    const rooms = await Rooms.of(ctx).all()
    return rows.some(row => {
      const room = rooms.find(each => each.id === row.room_id)
      if (room === undefined) return false
      if (row.state === null) return canRead(room, viewer)
      return viewer.holds(MANAGE_NODE) || (row.author_id !== null && row.author_id === viewer.userId)
    })
  }
  return {
    async visible (sha256: string, viewer: Viewer): Promise<boolean> {
      if (viewer.signedIn) return read(sha256, viewer)
      const known = visitorSees.get(sha256)
      if (known !== undefined) return known
      // Read before it is kept: a change heard meanwhile forgets the keeping too.
      const changes = forgotten
      const seen = await read(sha256, viewer)
      if (changes === forgotten) {
        if (visitorSees.size >= VISITOR_PICTURES_KEPT) visitorSees.clear()
        visitorSees.set(sha256, seen)
      }
      return seen
    },
    async inUse (sha256s: readonly string[]): Promise<Set<string>> {
      if (sha256s.length === 0) return new Set()
      const urls = sha256s.map(sha => `/uploads/${sha}.webp`)
      const rows: Array<{ url: string }> = (await ctx.db.raw(`select distinct picture->>'url' as url from ?? as s, jsonb_array_elements(s.uploads) as picture
        where s.uploads is not null and picture->>'url' = any(?::text[])`, [SHOUTS_TABLE, urls])).rows
      return new Set(rows.map(row => shaOf(row.url)))
    }
  }
}
