import type { AddonContext } from '../../sdk/index.js'
import { perContext } from '../per-context.js'
import { GENERAL_ROOM_SLUG } from '../rooms.js'
import type { Shout } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { CHANGE_KINDS, unhandled } from './kinds.js'
import { onChange, readNotice } from './notice.js'

/** How many deleted ids and edited shouts are remembered; a change and the create it crosses are never further apart. */
const REMEMBERED = 10_000
/** After a delete or an edit whose events are not known (its notice could not carry them), for this long nothing is updated in place. */
const BLIND_MS = 10_000

/**
 * Every delete and edit this process hears of, from every notice, whether a list is kept
 * or not: notices from two processes can cross, so a create may be heard after its own
 * delete (it must not put the shout back) or after an edit of its shout (it must show the
 * edited text), and an older edit after a newer one (it must not undo it).
 */
export class RecentChanges {
  static readonly of = perContext(ctx => new RecentChanges(ctx))
  private readonly deleted = new Set<number>()
  /** The newest edit heard of each shout, with the stream event that made it. */
  private readonly edits = new Map<number, { eventId: number, message: string }>()
  private blindUntil = 0

  private constructor (private readonly ctx: AddonContext) {}

  start (): void {
    onChange(this.ctx, notice => {
      // A shout taken off the board (a delete, as far as readers know) that staff put back.
      if (notice?.kind === 'shout-restored') {
        for (const event of notice.events ?? []) this.deleted.delete(event.shout.id)
        if (notice.events === undefined) this.blindUntil = Date.now() + BLIND_MS
        return
      }
      const rule = notice === undefined ? undefined : CHANGE_KINDS[notice.kind].list
      if (rule !== undefined && rule !== 'remove' && rule !== 'retext') return
      // Which shouts changed is not known (a notice unread, or without its events): a
      // create heard soon may be crossing it.
      if (notice?.events === undefined) {
        this.blindUntil = Date.now() + BLIND_MS
        return
      }
      for (const event of notice.events) {
        if (rule === 'remove') {
          this.deleted.add(event.shout.id)
          if (this.deleted.size > REMEMBERED) this.deleted.delete(this.deleted.values().next().value!)
        } else if ('message' in event.shout && this.isNewestEdit(event.shout.id, event.id)) {
          this.edits.delete(event.shout.id)
          this.edits.set(event.shout.id, { eventId: event.id, message: event.shout.message })
          if (this.edits.size > REMEMBERED) this.edits.delete(this.edits.keys().next().value!)
        }
      }
    })
  }

  isDeleted (id: number): boolean {
    return this.deleted.has(id)
  }

  /** The text of the newest edit of shout `id` heard after its stream event `eventId`. */
  editAfter (id: number, eventId: number): string | undefined {
    const known = this.edits.get(id)
    return known !== undefined && known.eventId > eventId ? known.message : undefined
  }

  /** True when event `eventId` is the newest edit heard of shout `id`. */
  isNewestEdit (id: number, eventId: number): boolean {
    return (this.edits.get(id)?.eventId ?? eventId) <= eventId
  }

  /** True while a change whose ids are unknown may cross a create. */
  get blind (): boolean {
    return Date.now() < this.blindUntil
  }
}

/**
 * The list after a change, from the list before it and the change notice alone: what the
 * list endpoint's `handle` would read from the database, without reading it. `undefined`
 * when that cannot be known — a notice this process cannot read, one that does not carry
 * its events, a kind whose rule is to rebuild, settings not known here, or a shout that
 * left a full list (the next one is in the database) — and the list is then read anew.
 */
export function nextList (previous: Readonly<Record<string, unknown>>, payload: string, ctx: AddonContext): { shouts: Shout[] } | undefined {
  const notice = readNotice(payload)
  if (notice === undefined) return undefined
  const before = previous.shouts as readonly Shout[]
  const rule = CHANGE_KINDS[notice.kind].list
  // Nothing changes: the kept answer itself (another room's shout, a pin, a mute).
  const same = previous as { shouts: Shout[] }
  if (rule === 'unchanged') return same
  const maxShouts = ShoutboxSettings.of(ctx).known?.maxShouts
  const recent = RecentChanges.of(ctx)
  if (rule === 'rebuild' || notice.events === undefined || maxShouts === undefined || recent.blind) return undefined
  // Fewer than the limit: the list holds every shout there is.
  const complete = maxShouts === null || before.length < maxShouts
  const held = new Set(before.map(shout => shout.id))
  const lowest = before.at(-1)?.id ?? 0
  const added: Shout[] = []
  const removed = new Set<number>()
  const edited = new Map<number, string>()
  for (const event of notice.events) {
    const { id } = event.shout
    // The list is the default room's: another room's shouts change nothing in it.
    if (event.shout.room !== GENERAL_ROOM_SLUG) continue
    switch (rule) {
      case 'add': {
        // A restored shout was "deleted" for readers until now: the record of deletes does not apply to it.
        if ((notice.kind !== 'shout-restored' && recent.isDeleted(id)) || held.has(id) || !('message' in event.shout)) continue
        const { message, username, date } = event.shout
        added.push({ id, message: recent.editAfter(id, event.id) ?? message, username, date })
        held.add(id)
        break
      }
      case 'retext':
        // Only the text changes: the shout keeps its place, in the list or out of it.
        if ('message' in event.shout && !recent.isDeleted(id) && recent.isNewestEdit(id, event.id)) edited.set(id, event.shout.message)
        break
      case 'remove':
        if (held.has(id)) {
          if (!complete) return undefined
          removed.add(id)
        } else if (!complete && id > lowest) {
          return undefined
        }
        break
      default:
        return unhandled(rule)
    }
  }
  if (added.length === 0 && removed.size === 0 && edited.size === 0) return same
  const relabel = (shout: Shout): Shout => edited.has(shout.id) ? { ...shout, message: edited.get(shout.id)! } : shout
  let shouts = [...added, ...before].filter(shout => !removed.has(shout.id)).map(relabel)
  // New shouts usually have the highest ids; sort only when one does not.
  if (added.some(shout => shout.id < (before[0]?.id ?? 0)) || added.length > 1) shouts.sort((a, b) => b.id - a.id)
  if (maxShouts !== null) shouts = shouts.slice(0, maxShouts)
  return { shouts }
}
