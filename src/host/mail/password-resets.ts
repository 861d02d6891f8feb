import { createHash, randomBytes } from 'node:crypto'
import type { Database, Transaction } from '../../sdk/index.js'
import { PASSWORD_RESETS_TABLE } from './tables.js'

/** A reset link works this long. */
export const RESET_VALID_MS = 30 * 60_000
/** Resets one account may be sent in an hour. */
export const RESETS_PER_ACCOUNT_PER_HOUR = 3

const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex')

/** A new token (32 random bytes, base64url) and the hash it is kept as. */
export function newResetToken (): { token: string, hash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: sha256(token) }
}

/**
 * Password resets, kept only as the SHA-256 of their token. A new one spends the user's
 * earlier ones (a link stolen from an old mail stops working); finishing spends it in the
 * statement that finds it, so two requests with the same token cannot both succeed.
 */
export function passwordResetsRepository (db: Database, now: () => number = Date.now) {
  return {
    /** Resets the user was sent in the last hour (inside `trx`, their row locked). */
    async countLastHour (userId: number, trx: Database = db): Promise<number> {
      const [row] = await trx(PASSWORD_RESETS_TABLE).where({ user_id: userId }).where('created_at', '>', now() - 60 * 60_000).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    /** Spends the user's earlier resets and keeps `hash` as the one that works. */
    async replace (userId: number, hash: string, trx: Transaction): Promise<void> {
      const at = now()
      await trx(PASSWORD_RESETS_TABLE).where({ user_id: userId }).where('created_at', '<=', at - 24 * 60 * 60_000).delete()
      await trx(PASSWORD_RESETS_TABLE).where({ user_id: userId, spent: false }).update({ spent: true })
      await trx(PASSWORD_RESETS_TABLE).insert({ token_hash: hash, user_id: userId, created_at: at, expires_at: at + RESET_VALID_MS })
    },

    /** Whether `token` is a reset that still works (read only: finishing spends it). */
    async usable (token: string): Promise<boolean> {
      return await db(PASSWORD_RESETS_TABLE).where({ token_hash: sha256(token), spent: false }).where('expires_at', '>', now()).first('user_id') !== undefined
    },

    /** The user whose unspent, unexpired reset `token` is, spending it (and their others); undefined when none. */
    async spend (token: string, trx: Transaction): Promise<number | undefined> {
      const [row] = await trx(PASSWORD_RESETS_TABLE).where({ token_hash: sha256(token), spent: false }).where('expires_at', '>', now())
        .update({ spent: true }).returning<Array<{ user_id: number }>>('user_id')
      if (row === undefined) return undefined
      await trx(PASSWORD_RESETS_TABLE).where({ user_id: row.user_id, spent: false }).update({ spent: true })
      return row.user_id
    }
  }
}

export type PasswordResetsRepository = ReturnType<typeof passwordResetsRepository>
