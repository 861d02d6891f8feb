import { createHash } from 'node:crypto'
import type { Database, Transaction } from '../../sdk/index.js'
import { EMAIL_VERIFICATIONS_TABLE } from './tables.js'

/** A verification link works this long: a week, as a new member may read their mail later. */
export const VERIFICATION_VALID_MS = 7 * 24 * 60 * 60_000
/** Verification mails one account may be sent in an hour (the sign-up's included). */
export const VERIFICATIONS_PER_ACCOUNT_PER_HOUR = 3

const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex')

/**
 * Links that confirm an account's address, kept as the SHA-256 of their token. A new one
 * spends the user's earlier ones; following one spends it in the statement that finds it.
 */
export function emailVerificationsRepository (db: Database, now: () => number = Date.now) {
  return {
    /** Links the user was sent in the last hour (inside `trx`, their row locked). */
    async countLastHour (userId: number, trx: Database = db): Promise<number> {
      const [row] = await trx(EMAIL_VERIFICATIONS_TABLE).where({ user_id: userId }).where('created_at', '>', now() - 60 * 60_000).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    /** Spends the user's earlier links and keeps `hash` as the one that works. */
    async replace (userId: number, hash: string, trx: Transaction): Promise<void> {
      const at = now()
      await trx(EMAIL_VERIFICATIONS_TABLE).where({ user_id: userId }).where('created_at', '<=', at - 2 * VERIFICATION_VALID_MS).delete()
      await trx(EMAIL_VERIFICATIONS_TABLE).where({ user_id: userId, spent: false }).update({ spent: true })
      await trx(EMAIL_VERIFICATIONS_TABLE).insert({ token_hash: hash, user_id: userId, created_at: at, expires_at: at + VERIFICATION_VALID_MS })
    },

    /** The user whose unspent, unexpired link `token` is, spending it; undefined when none. */
    async spend (token: string, trx: Transaction): Promise<number | undefined> {
      const [row] = await trx(EMAIL_VERIFICATIONS_TABLE).where({ token_hash: sha256(token), spent: false }).where('expires_at', '>', now())
        .update({ spent: true }).returning<Array<{ user_id: number }>>('user_id')
      return row?.user_id
    },

    /** Every link of the user stops working (the address was confirmed another way, or changed). */
    async spendAll (userId: number, trx: Transaction): Promise<void> {
      await trx(EMAIL_VERIFICATIONS_TABLE).where({ user_id: userId, spent: false }).update({ spent: true })
    }
  }
}

export type EmailVerificationsRepository = ReturnType<typeof emailVerificationsRepository>
