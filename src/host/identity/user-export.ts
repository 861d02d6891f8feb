import { keysetArray, type Database, type MemberViewer, type StreamedObject } from '../../sdk/index.js'
import type { AddonRegistry } from '../addons/registry.js'
import { NOTIFICATIONS_TABLE, ROLES_TABLE, SESSIONS_TABLE, USERS_TABLE } from '../database/tables.js'
import type { ApiTokens } from './api-tokens.js'
import { preferencesRepository } from './preferences.js'

interface SessionRow { created_at: number | string, expires_at: number | string, token_hash: string }
interface NotificationRow { id: number | string, addon_id: string, kind: string, data: unknown, created_at: number | string, read: boolean }

/**
 * Everything stored about one user, as one JSON document (a member's right to their
 * data): the account without its password hash, when each session began and ends, the
 * preferences, the notifications, the API tokens' metadata (never a secret or its hash),
 * and each addon's part (`AddonDefinition.exportUser`: Shoutbox's shouts, reactions,
 * reports, ignore list…). Undefined when there is no such user.
 *
 * The account, preferences and tokens (at most MAX_TOKENS_PER_USER) are read now; the
 * sessions, the notifications and the addons' long lists are read a batch at a time by
 * keyset while the document is written, each batch its own short query. No transaction is
 * held for the download, which lasts as long as the client takes to read it: the embedded
 * database has one connection, which it would hold from everyone else, and on PostgreSQL
 * it would hold a connection and the oldest snapshot back from vacuum. So the document is
 * not one snapshot: what was added after the export started is left out of the lists
 * whose keys grow (shouts, notifications), and a row changed or deleted during the
 * download is as its batch found it.
 */
export async function exportUser (db: Database, tokens: ApiTokens, addons: AddonRegistry, userId: number, reader: MemberViewer): Promise<StreamedObject | undefined> {
  const account = await db(USERS_TABLE).join(ROLES_TABLE, `${ROLES_TABLE}.id`, `${USERS_TABLE}.role_id`).where(`${USERS_TABLE}.id`, userId)
    .first<{ id: number, username: string, email: string, role: string, disabled: boolean, bot: boolean, created_at: number | string } | undefined>(
      `${USERS_TABLE}.id`, `${USERS_TABLE}.username`, `${USERS_TABLE}.email`, `${ROLES_TABLE}.name as role`, `${USERS_TABLE}.disabled`, `${USERS_TABLE}.bot`, `${USERS_TABLE}.created_at`)
  if (account === undefined) return undefined
  const lastNotification = Number((await db(NOTIFICATIONS_TABLE).where({ user_id: userId }).max<{ last: number | string | null }>('id as last').first())?.last ?? 0)
  const [preferences, tokenList, addonParts] = await Promise.all([preferencesRepository(db).of(userId), tokens.listOf(userId), addons.exportUser(userId, reader)])
  // Another's export (an administrator's) holds only the notifications its reader may read: none about a conversation of two, say.
  const visible = reader.userId === userId ? undefined : (await addons.visibleNotifications(reader)).sql
  return {
    exportedAt: Date.now(),
    account: { id: account.id, username: account.username, email: account.email, role: account.role, disabled: account.disabled, bot: account.bot, createdAt: Number(account.created_at) },
    sessions: keysetArray<SessionRow, SessionRow>({
      read: (after, limit) => db(SESSIONS_TABLE).where({ user_id: userId })
        .modify(query => { if (after !== undefined) void query.whereRaw('(created_at, token_hash) > (?, ?)', [after.created_at, after.token_hash]) })
        .orderBy([{ column: 'created_at' }, { column: 'token_hash' }]).limit(limit).select('created_at', 'expires_at', 'token_hash'),
      key: row => row,
      items: rows => rows.map(row => ({ createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) }))
    }),
    preferences,
    notifications: keysetArray<NotificationRow, number>({
      read: (after, limit) => db(`${NOTIFICATIONS_TABLE} as n`).where({ user_id: userId }).andWhere('id', '>', after ?? 0).andWhere('id', '<=', lastNotification)
        .modify(query => { if (visible !== undefined) void query.whereRaw('?', [visible]) })
        .orderBy('id').limit(limit).select('id', 'addon_id', 'kind', 'data', 'created_at', 'read'),
      key: row => Number(row.id),
      items: rows => rows.map(row => ({ id: Number(row.id), addon: row.addon_id, kind: row.kind, data: row.data, createdAt: Number(row.created_at), read: row.read }))
    }),
    tokens: tokenList,
    addons: addonParts
  }
}
