import type { AddonContext } from '../sdk/index.js'
import { readNotice, type ChangeNotice } from './change-notices.js'
import { perContext } from './per-context.js'
import type { Shout } from './schemas.js'
import { ShoutboxSettings } from './settings.js'

/** Ids deleted lately, so a create heard after its own delete (notices from two processes can cross) is not shown again. */
class Deleted {
  static readonly of = perContext(() => new Deleted())
  private static readonly REMEMBERED = 10_000
  private readonly ids = new Set<number>()

  add (id: number): void {
    this.ids.add(id)
    if (this.ids.size > Deleted.REMEMBERED) this.ids.delete(this.ids.values().next().value!)
  }

  has (id: number): boolean {
    return this.ids.has(id)
  }
}

/** Changes that never change the list: pins are shown apart (GET /api/shoutbox/pinned). */
const LIST_UNCHANGED_BY: ReadonlySet<ChangeNotice['kind']> = new Set(['shout-pinned', 'shout-unpinned'])

/**
 * The list after a change, from the list before it and the change notice alone: what the
 * list endpoint's `handle` would read from the database, without reading it. `undefined`
 * when that cannot be known — the notice does not carry its events, the settings changed
 * or are not known here, or a shout left a full list (the next one is in the database) —
 * and the list is then read anew.
 */
export function nextList (previous: Readonly<Record<string, unknown>>, payload: string, ctx: AddonContext): { shouts: Shout[] } | undefined {
  const notice = readNotice(payload)
  if (notice !== undefined && LIST_UNCHANGED_BY.has(notice.kind)) return { shouts: [...previous.shouts as readonly Shout[]] }
  const maxShouts = ShoutboxSettings.of(ctx).known?.maxShouts
  if (notice?.events === undefined || notice.kind === 'settings' || maxShouts === undefined) return undefined
  const before = previous.shouts as readonly Shout[]
  const deleted = Deleted.of(ctx)
  // Fewer than the limit: the list holds every shout there is.
  const complete = maxShouts === null || before.length < maxShouts
  let shouts = [...before]
  for (const { kind, shout } of notice.events) {
    if (kind === 'shout-created') {
      if (deleted.has(shout.id) || shouts.some(s => s.id === shout.id)) continue
      const { id, message, username, date } = shout
      shouts.push({ id, message, username, date })
    } else {
      deleted.add(shout.id)
      const at = shouts.findIndex(s => s.id === shout.id)
      if (at !== -1) {
        if (!complete) return undefined
        shouts.splice(at, 1)
      } else if (!complete && shout.id > (shouts.at(-1)?.id ?? 0)) {
        return undefined
      }
    }
  }
  shouts.sort((a, b) => b.id - a.id)
  if (maxShouts !== null) shouts = shouts.slice(0, maxShouts)
  return { shouts }
}
