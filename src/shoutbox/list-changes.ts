import type { AddonContext } from '../sdk/index.js'
import { onChange, readNotice } from './change-notices.js'
import { perContext } from './per-context.js'
import type { Shout } from './schemas.js'
import { ShoutboxSettings } from './settings.js'

/** How many deleted ids are remembered; a create and its delete never cross further apart. */
const REMEMBERED = 10_000
/** After a delete whose ids are not known (its notice could not carry them), for this long nothing is updated in place. */
const BLIND_MS = 10_000

/**
 * Every delete this process hears of, from every notice, whether a list is kept or not:
 * notices from two processes can cross, so a create may be heard after its own delete,
 * and must not put the shout back.
 */
export class RecentDeletes {
  static readonly of = perContext(ctx => new RecentDeletes(ctx))
  private readonly ids = new Set<number>()
  private blindUntil = 0

  private constructor (private readonly ctx: AddonContext) {}

  start (): void {
    onChange(this.ctx, notice => {
      if (notice?.kind !== 'shout-deleted') return
      if (notice.events === undefined) {
        this.blindUntil = Date.now() + BLIND_MS
        return
      }
      for (const { shout } of notice.events) {
        this.ids.add(shout.id)
        if (this.ids.size > REMEMBERED) this.ids.delete(this.ids.values().next().value!)
      }
    })
  }

  has (id: number): boolean {
    return this.ids.has(id)
  }

  /** True while a delete whose ids are unknown may cross a create. */
  get blind (): boolean {
    return Date.now() < this.blindUntil
  }
}

/**
 * The list after a change, from the list before it and the change notice alone: what the
 * list endpoint's `handle` would read from the database, without reading it. `undefined`
 * when that cannot be known — the notice does not carry its events, the settings changed
 * or are not known here, or a shout left a full list (the next one is in the database) —
 * and the list is then read anew.
 */
export function nextList (previous: Readonly<Record<string, unknown>>, payload: string, ctx: AddonContext): { shouts: Shout[] } | undefined {
  const notice = readNotice(payload)
  const maxShouts = ShoutboxSettings.of(ctx).known?.maxShouts
  const deleted = RecentDeletes.of(ctx)
  if (notice?.events === undefined || notice.kind === 'settings' || maxShouts === undefined || deleted.blind) return undefined
  const before = previous.shouts as readonly Shout[]
  // Fewer than the limit: the list holds every shout there is.
  const complete = maxShouts === null || before.length < maxShouts
  const held = new Set(before.map(shout => shout.id))
  const lowest = before.at(-1)?.id ?? 0
  const added: Shout[] = []
  const removed = new Set<number>()
  for (const { kind, shout } of notice.events) {
    if (kind === 'shout-created') {
      if (deleted.has(shout.id) || held.has(shout.id)) continue
      const { id, message, username, date } = shout
      added.push({ id, message, username, date })
      held.add(id)
    } else if (held.has(shout.id)) {
      if (!complete) return undefined
      removed.add(shout.id)
    } else if (!complete && shout.id > lowest) {
      return undefined
    }
  }
  if (added.length === 0 && removed.size === 0) return { shouts: [...before] }
  let shouts = [...added, ...before].filter(shout => !removed.has(shout.id))
  // New shouts usually have the highest ids; sort only when one does not.
  if (added.some(shout => shout.id < (before[0]?.id ?? 0)) || added.length > 1) shouts.sort((a, b) => b.id - a.id)
  if (maxShouts !== null) shouts = shouts.slice(0, maxShouts)
  return { shouts }
}
