import { NoPermission, NotFound, type Actor, type AddonContext, type SessionUser, type Transaction } from '../sdk/index.js'
import { announceToMember } from './changes/notice.js'
import { Muted } from './errors.js'
import { mutesRepository, type Mute } from './mutes-repository.js'

const MINUTE_MS = 60_000

/**
 * Mutes member `userId` for `minutes` (null: until lifted), in place of any mute they
 * have: by a moderator, or (`by` null) by the board itself (an automatic silence). 404
 * for no such account; holders of MANAGE_SHOUTBOX cannot be muted (403). Logged
 * MUTED_USER; the member's open pages hide their composer at once.
 */
export async function muteMember (ctx: AddonContext, { userId, minutes, reason, by }: { userId: number, minutes: number | null, reason: string | null, by: Actor | null }, trx: Transaction): Promise<Mute> {
  const member = await ctx.users.find(userId, trx)
  if (member === undefined) throw new NotFound()
  if (ctx.permissions.has(member, 'MANAGE_SHOUTBOX')) throw new NoPermission()
  const now = Date.now()
  const until = minutes === null ? null : now + minutes * MINUTE_MS
  const made = await mutesRepository(ctx.db).put({ userId, username: member.username, until, reason, by: by?.username ?? null, byId: by?.id ?? null, createdAt: now }, trx)
  const { variant, amount } = muteSentence(minutes, reason)
  await ctx.activityLog.write({ type: 'MUTED_USER', user: by, details: { userId, user: member.username, minutes, until, reason, amount, variant } }, trx)
  await ctx.webhooks.enqueue('member.muted', [{ data: { userId, username: member.username, until, reason, by: by?.username ?? null } }], trx)
  await announceToMember(ctx, 'posting-changed', userId, trx)
  return made
}

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
