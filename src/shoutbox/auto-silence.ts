import type { AddonContext, SessionUser, Transaction } from '../sdk/index.js'
import { lockFloodRow } from './flood-control.js'
import { muteMember } from './mutes.js'
import type { Settings } from './schemas.js'
import { FLOOD_CONTROL_TABLE } from './tables.js'

/*
 * The board silences a member by itself (MUTED_USER with no moderator, "the board" in the
 * feed) after `autoMuteAfter` flood refusals within ten minutes, or after three of their
 * shouts deleted by review within a day. Each count is kept in the member's flood-control
 * row, locked while it is counted, so every process counts the same.
 */

const REFUSALS_WITHIN_MS = 10 * 60_000
const DELETIONS_WITHIN_MS = 24 * 3_600_000
/** How many of a member's shouts deleted by review within a day silence them. */
export const REVIEW_DELETIONS_TO_SILENCE = 3

/** A member refused by flood control: the `autoMuteAfter`-th refusal within ten minutes mutes them for `autoMuteMinutes`. */
export async function countFloodRefusal (ctx: AddonContext, user: SessionUser, settings: Pick<Settings, 'autoMuteAfter' | 'autoMuteMinutes'>): Promise<void> {
  if (settings.autoMuteAfter === 0) return
  await ctx.transaction(async trx => {
    if (await count(user.id, 'refusals_recent', REFUSALS_WITHIN_MS, trx) < settings.autoMuteAfter) return
    await reset(user.id, 'refusals_recent', trx)
    await muteMember(ctx, { userId: user.id, minutes: settings.autoMuteMinutes, reason: null, by: null }, trx)
  })
}

/** A member's shout deleted by review: the third within a day mutes them for `autoMuteMinutes`. */
export async function countReviewDeletion (ctx: AddonContext, authorId: number, settings: Pick<Settings, 'autoMuteMinutes'>, trx: Transaction): Promise<void> {
  if (await count(authorId, 'review_deletions_recent', DELETIONS_WITHIN_MS, trx) < REVIEW_DELETIONS_TO_SILENCE) return
  await reset(authorId, 'review_deletions_recent', trx)
  const author = await ctx.users.find(authorId, trx)
  if (author === undefined || ctx.permissions.has(author, 'MANAGE_SHOUTBOX')) return
  await muteMember(ctx, { userId: authorId, minutes: settings.autoMuteMinutes, reason: null, by: null }, trx)
}

type Counted = 'refusals_recent' | 'review_deletions_recent'

/** Adds one to the member's `column` (times, ms) and answers how many fall within `withinMs`. */
async function count (userId: number, column: Counted, withinMs: number, trx: Transaction): Promise<number> {
  const row = await lockFloodRow<Record<Counted, number[]>>(userId, [column], trx)
  const now = Date.now()
  const recent = [...row[column].filter(at => at > now - withinMs), now]
  await trx(FLOOD_CONTROL_TABLE).where({ author_id: userId }).update({ [column]: JSON.stringify(recent) })
  return recent.length
}

/** Starts the count again (a silence was just given for it). */
async function reset (userId: number, column: Counted, trx: Transaction): Promise<void> {
  await trx(FLOOD_CONTROL_TABLE).where({ author_id: userId }).update({ [column]: '[]' })
}
