import { createHash } from 'node:crypto'
import type { Database, Transaction } from '../../sdk/index.js'
import { EMAIL_CHANGES_TABLE } from './tables.js'

/** A change link works this long: a day, as the new address may be read later than a reset's. */
export const EMAIL_CHANGE_VALID_MS = 24 * 60 * 60_000
/** Changes one account may ask for in an hour. */
export const EMAIL_CHANGES_PER_HOUR = 3

const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex')

/**
 * E-mail changes waiting for the link mailed to the new address, kept as the SHA-256 of
 * their token. A new one spends the user's earlier ones; following the link spends it in
 * the statement that finds it.
 */
export function emailChangesRepository (db: Database, now: () => number = Date.now) {
  return {
    async countLastHour (userId: number, trx: Database = db): Promise<number> {
      const [row] = await trx(EMAIL_CHANGES_TABLE).where({ user_id: userId }).where('created_at', '>', now() - 60 * 60_000).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    async replace (userId: number, newEmail: string, hash: string, trx: Transaction): Promise<void> {
      const at = now()
      await trx(EMAIL_CHANGES_TABLE).where({ user_id: userId }).where('created_at', '<=', at - 2 * EMAIL_CHANGE_VALID_MS).delete()
      await trx(EMAIL_CHANGES_TABLE).where({ user_id: userId, spent: false }).update({ spent: true })
      await trx(EMAIL_CHANGES_TABLE).insert({ token_hash: hash, user_id: userId, new_email: newEmail, created_at: at, expires_at: at + EMAIL_CHANGE_VALID_MS })
    },

    /** The user and new address of the unspent, unexpired change `token`, spending it; undefined when none. */
    async spend (token: string, trx: Transaction): Promise<{ userId: number, newEmail: string } | undefined> {
      const [row] = await trx(EMAIL_CHANGES_TABLE).where({ token_hash: sha256(token), spent: false }).where('expires_at', '>', now())
        .update({ spent: true }).returning<Array<{ user_id: number, new_email: string }>>(['user_id', 'new_email'])
      return row === undefined ? undefined : { userId: row.user_id, newEmail: row.new_email }
    }
  }
}

export type EmailChangesRepository = ReturnType<typeof emailChangesRepository>
