import type { AddonRegistry } from '../addons/registry.js'
import type { Transaction } from '../../sdk/index.js'
import type { Identity } from '../plugins/identity.js'

/**
 * Deletes the account `userId` inside `trx` as the site's `erasure` setting says: each
 * addon first takes out what it keeps of the user (their shouts kept under `deleted user`,
 * or deleted), then the account goes with what hangs on it — sessions (ended on every
 * process), API tokens, notifications, preferences — and its username is retired.
 * The caller locks account changes, checks who may do it, and logs it.
 */
export async function eraseAccount (identity: Identity, addons: AddonRegistry, userId: number, trx: Transaction): Promise<void> {
  const { erasure } = await identity.siteSettings.read(trx)
  await addons.eraseUser(userId, erasure, trx)
  await identity.sessions.endSessionsOf(userId, undefined, trx)
  await identity.users.delete(userId, trx)
}
