import { DELETED_USER_NAME, type Transaction } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { HOST_DATA_MAP } from '../data-map.js'

/**
 * The fields of an activity entry's details, or of a delivery's data, that hold someone's
 * text (a shout, a note, a reason): an erased person's, and those naming them, keep none.
 */
export const ACTIVITY_TEXT_FIELDS = ['message', 'previousMessage', 'excerpt', 'note', 'reason'] as const

/**
 * Deletes the account `userId` (named `username`) inside `trx` as the site's `erasure`
 * setting says, reaching every copy the data map lists: each addon first takes out what
 * it keeps of the user (their shouts kept under `deleted user`, or deleted; the copies of
 * their text and name in notifications, reports and the activity log); then the rows the
 * data map marks `erase: 'rows'` (theirs alone: reactions, read markers, tokens…); then
 * the host's own copies — activity entries stay under `deleted user` without their text, pending
 * webhook deliveries name `deleted user` — and the account goes with what hangs on it:
 * sessions (ended on every process), API tokens, notifications, preferences; its username
 * is retired (kept only as a hash). The caller locks account changes, checks who may do
 * it, and logs it (naming `deleted user`).
 */
export async function eraseAccount (ctx: HostContext, userId: number, username: string, trx: Transaction): Promise<void> {
  const { identity } = ctx
  const { erasure } = await identity.siteSettings.read(trx)
  await ctx.addons.eraseUser(userId, erasure, trx)
  for (const table of [...ctx.addons.dataMap(), ...HOST_DATA_MAP]) {
    if (table.erase === 'rows' && table.person !== undefined) await trx(table.table).where(table.person, userId).delete()
  }
  await ctx.activityFeed.forgetPerson(userId, username, DELETED_USER_NAME, ACTIVITY_TEXT_FIELDS, trx)
  await ctx.webhookAdmin.outbox.forgetName(username, DELETED_USER_NAME, ACTIVITY_TEXT_FIELDS, trx)
  await ctx.notificationCenter.forgetName(username, DELETED_USER_NAME, trx)
  await identity.sessions.endSessionsOf(userId, undefined, trx)
  await identity.users.delete(userId, trx)
}
