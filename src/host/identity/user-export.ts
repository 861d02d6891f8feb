import type { Database } from '../../sdk/index.js'
import type { AddonRegistry } from '../addons/registry.js'
import { NOTIFICATIONS_TABLE, ROLES_TABLE, SESSIONS_TABLE, USERS_TABLE } from '../database/tables.js'
import type { ApiTokens } from './api-tokens.js'
import { preferencesRepository } from './preferences.js'

/**
 * Everything stored about one user, as one JSON document (a member's right to their
 * data): the account without its password hash, when each session began and ends, the
 * preferences, the notifications, the API tokens' metadata (never a secret or its hash),
 * and each addon's part (`AddonDefinition.exportUser`: Shoutbox's shouts, reactions,
 * reports, ignore list…). Undefined when there is no such user.
 */
export async function exportUser (db: Database, tokens: ApiTokens, addons: AddonRegistry, userId: number): Promise<Record<string, unknown> | undefined> {
  const account = await db(USERS_TABLE).join(ROLES_TABLE, `${ROLES_TABLE}.id`, `${USERS_TABLE}.role_id`).where(`${USERS_TABLE}.id`, userId)
    .first<{ id: number, username: string, email: string, role: string, disabled: boolean, bot: boolean, created_at: number | string } | undefined>(
      `${USERS_TABLE}.id`, `${USERS_TABLE}.username`, `${USERS_TABLE}.email`, `${ROLES_TABLE}.name as role`, `${USERS_TABLE}.disabled`, `${USERS_TABLE}.bot`, `${USERS_TABLE}.created_at`)
  if (account === undefined) return undefined
  const sessions: Array<{ created_at: number | string, expires_at: number | string }> = await db(SESSIONS_TABLE).where({ user_id: userId }).orderBy('created_at').select('created_at', 'expires_at')
  const notifications: Array<{ id: number | string, addon_id: string, kind: string, data: unknown, created_at: number | string, read: boolean }> =
    await db(NOTIFICATIONS_TABLE).where({ user_id: userId }).orderBy('id').select('id', 'addon_id', 'kind', 'data', 'created_at', 'read')
  return {
    exportedAt: Date.now(),
    account: { id: account.id, username: account.username, email: account.email, role: account.role, disabled: account.disabled, bot: account.bot, createdAt: Number(account.created_at) },
    sessions: sessions.map(row => ({ createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) })),
    preferences: await preferencesRepository(db).of(userId),
    notifications: notifications.map(row => ({ id: Number(row.id), addon: row.addon_id, kind: row.kind, data: row.data, createdAt: Number(row.created_at), read: row.read })),
    tokens: await tokens.listOf(userId),
    addons: await addons.exportUser(userId)
  }
}
