import type { AddonContext, SessionUser } from '../sdk/index.js'
import { Muted } from './errors.js'
import { mutesRepository, type Mute } from './mutes-repository.js'

/**
 * The mute that stops `user` posting now, if any. Read from the database on every call:
 * a mute made or lifted on any host process applies to the very next post here, and one
 * whose time has passed refuses nothing. Holders of MANAGE_SHOUTBOX are never muted (a
 * mute left from before they were given it does not hold them).
 */
export async function muteOf (ctx: AddonContext, user: SessionUser): Promise<Mute | undefined> {
  if (ctx.permissions.has(user, 'MANAGE_SHOUTBOX')) return undefined
  return mutesRepository(ctx.db).active(user.id, Date.now())
}

/** Refuses a muted member's post or edit: MUTED, with `until`. */
export async function assertNotMuted (ctx: AddonContext, user: SessionUser): Promise<void> {
  const mute = await muteOf(ctx, user)
  if (mute !== undefined) throw new Muted(mute.until)
}

const UNITS = [['week', 10_080], ['day', 1_440], ['hour', 60], ['minute', 1]] as const

/**
 * How the feed tells a mute's length: the largest whole unit (`90` → 90 minutes, `120`
 * → 2 hours), and its sentence variant (`hours`, `hour`, …, `lifted` for "until lifted",
 * each with `-reason` when a reason was given).
 */
export function muteSentence (minutes: number | null, reason: string | null): { variant: string, amount: number | null } {
  const withReason = reason === null ? '' : '-reason'
  if (minutes === null) return { variant: `lifted${withReason}`, amount: null }
  const [unit, size] = UNITS.find(([, length]) => minutes % length === 0)!
  const amount = minutes / size
  return { variant: `${unit}${amount === 1 ? '' : 's'}${withReason}`, amount }
}
