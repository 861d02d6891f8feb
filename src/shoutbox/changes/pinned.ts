import type { AddonContext } from '../../sdk/index.js'
import type { FullShout } from '../schemas.js'
import { CHANGE_KINDS, unhandled } from './kinds.js'
import { readNotice } from './notice.js'

/**
 * The pinned answer after a change, without the database, when its kind's rule says how
 * (see CHANGE_KINDS): unchanged, without the shouts it removed, or with the reaction counts
 * it carries. A kind whose rule is to
 * rebuild, or a notice this process cannot read, returns `undefined`: the answer is read anew.
 */
export function nextPinned (previous: Readonly<Record<string, unknown>>, payload: string, _ctx: AddonContext): { shouts: FullShout[] } | undefined {
  const notice = readNotice(payload)
  if (notice === undefined) return undefined
  const shouts = previous.shouts as readonly FullShout[]
  const rule = CHANGE_KINDS[notice.kind].pinned
  switch (rule) {
    case 'unchanged':
      // The kept answer itself: nothing changed.
      return previous as { shouts: FullShout[] }
    case 'remove': {
      if (shouts.length === 0) return previous as { shouts: FullShout[] }
      if (notice.events === undefined) return undefined
      const removed = new Set(notice.events.map(event => event.shout.id))
      return shouts.some(shout => removed.has(shout.id)) ? { shouts: shouts.filter(shout => !removed.has(shout.id)) } : previous as { shouts: FullShout[] }
    }
    case 'recount': {
      if (notice.events === undefined) return undefined
      const counts = new Map(notice.events.flatMap(event => 'reactions' in event.shout ? [[event.shout.id, event.shout.reactions] as const] : []))
      return shouts.some(shout => counts.has(shout.id))
        ? { shouts: shouts.map(shout => counts.has(shout.id) ? { ...shout, reactions: [...counts.get(shout.id)!] } : shout) }
        : previous as { shouts: FullShout[] }
    }
    case 'rebuild':
      return undefined
    default:
      return unhandled(rule)
  }
}
