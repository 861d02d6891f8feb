import type { AddonContext } from '../sdk/index.js'
import { readNotice } from './change-notices.js'
import type { Shout } from './schemas.js'

/**
 * The pinned answer after a change, without the database, when the change cannot have
 * touched it: a publish or a settings change (a lower `maxPinned` unpins nothing), or a
 * delete of shouts that were not pinned (a deleted pinned shout simply leaves). A pin or
 * an unpin, or anything unknown, returns `undefined` and the answer is read anew: they
 * are rare, and two processes' pins may be heard in either order.
 */
export function nextPinned (previous: Readonly<Record<string, unknown>>, payload: string, _ctx: AddonContext): { shouts: Shout[] } | undefined {
  const notice = readNotice(payload)
  const shouts = previous.shouts as readonly Shout[]
  switch (notice?.kind) {
    case 'shout-created':
    case 'settings':
      return { shouts: [...shouts] }
    case 'shout-deleted': {
      if (shouts.length === 0) return { shouts: [] }
      if (notice.events === undefined) return undefined
      const deleted = new Set(notice.events.map(event => event.shout.id))
      return { shouts: shouts.filter(shout => !deleted.has(shout.id)) }
    }
    default:
      return undefined
  }
}
