import type { Transaction } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { VERIFICATIONS_PER_ACCOUNT_PER_HOUR } from './email-verifications.js'
import { newResetToken } from './password-resets.js'
import { composeMail } from './templates.js'

/** An account a verification link may be mailed to. */
export interface Unconfirmed { readonly id: number, readonly username: string, readonly email: string }

/**
 * Mails `account` a link that confirms its address (`/verify-email#token=…`), inside
 * `trx`: the link spends the account's earlier ones. At most three an hour per account;
 * past that nothing is written. Runs the same statements whether `account` is given, so a
 * caller that answers alike for an unknown address takes as long. True when it mailed.
 */
export async function mailVerification (ctx: HostContext, account: Unconfirmed | undefined, locale: string, trx: Transaction): Promise<boolean> {
  const { mail } = ctx
  const { token, hash } = newResetToken()
  const composed = composeMail(ctx.strings, locale, 'verify-email', { username: account?.username ?? '', site: mail.siteName }, `${mail.siteUrl}/verify-email#token=${token}`)
  await ctx.identity.users.lock(account?.id ?? 0, trx)
  const recent = await mail.verifications.countLastHour(account?.id ?? 0, trx)
  if (account === undefined || recent >= VERIFICATIONS_PER_ACCOUNT_PER_HOUR) return false
  await mail.verifications.replace(account.id, hash, trx)
  await mail.enqueue({ userId: account.id, kind: 'verify-email', to: account.email, ...composed }, trx)
  return true
}
