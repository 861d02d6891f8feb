import type { AddonContext } from '../../sdk/index.js'
import type { Shout } from '../schemas.js'
import { CHANGE_KINDS, unhandled } from './kinds.js'
import { readNotice } from './notice.js'

/**
 * The pinned answer after a change, without the database, when its kind's rule says how
 * (see CHANGE_KINDS): unchanged, or without the shouts it removed. A kind whose rule is to
 * rebuild, or a notice this process cannot read, returns `undefined`: the answer is read anew.
 */
export function nextPinned (previous: Readonly<Record<string, unknown>>, payload: string, _ctx: AddonContext): { shouts: Shout[] } | undefined {
  const notice = readNotice(payload)
  if (notice === undefined) return undefined
  const shouts = previous.shouts as readonly Shout[]
  const rule = CHANGE_KINDS[notice.kind].pinned
  switch (rule) {
    case 'unchanged':
      // The kept answer itself: nothing changed.
      return previous as { shouts: Shout[] }
    case 'remove': {
      if (shouts.length === 0) return previous as { shouts: Shout[] }
      if (notice.events === undefined) return undefined
      const removed = new Set(notice.events.map(event => event.shout.id))
      return shouts.some(shout => removed.has(shout.id)) ? { shouts: shouts.filter(shout => !removed.has(shout.id)) } : previous as { shouts: Shout[] }
    }
    case 'rebuild':
      return undefined
    default:
      return unhandled(rule)
  }
}
