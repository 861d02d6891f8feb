import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The signature of a mention mail's unsubscribe link for `userId`: an HMAC under a key
 * derived from the address secret, so the link works without a session and nobody can
 * make one for another account. It never expires: an old mail's link still stops the mails.
 */
export function unsubscribeToken (key: Buffer, userId: number): string {
  return createHmac('sha256', key).update(`mentions:${userId}`).digest('base64url')
}

/** Whether `token` is the signature of `userId`'s link (compared in constant time). */
export function isUnsubscribeToken (key: Buffer, userId: number, token: string): boolean {
  const expected = Buffer.from(unsubscribeToken(key, userId))
  const given = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
