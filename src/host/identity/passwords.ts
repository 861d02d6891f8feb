import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * scrypt at OWASP's recommended minimum (N=2^17, r=8, p=1: 128 MiB of memory per hash).
 * It runs on libuv's thread pool, so the event loop keeps serving while a hash runs.
 * The parameters are stored in each hash, so they can be raised later without
 * invalidating old passwords.
 */
export interface ScryptParams {
  readonly logN: number
  readonly r: number
  readonly p: number
}

export const OWASP_SCRYPT: ScryptParams = { logN: 17, r: 8, p: 1 }

const KEY_LENGTH = 32

function derive (password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => error ? reject(error) : resolve(key))
  })
}

export class PasswordHasher {
  constructor (private readonly params: ScryptParams = OWASP_SCRYPT) {}

  /** `scrypt$<logN>$<r>$<p>$<salt>$<key>`, base64url parts. */
  async hash (password: string): Promise<string> {
    const salt = randomBytes(16)
    const key = await derive(password, salt, this.params)
    const { logN, r, p } = this.params
    return ['scrypt', logN, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
  }

  async verify (password: string, stored: string): Promise<boolean> {
    const [scheme, logN, r, p, salt, key] = stored.split('$')
    if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false
    const expected = Buffer.from(key, 'base64url')
    const actual = await derive(password, Buffer.from(salt, 'base64url'), { logN: Number(logN), r: Number(r), p: Number(p) })
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  }

  /** Spends the same time as a real check, so a wrong username is not faster than a wrong password. */
  async verifyNobody (password: string): Promise<false> {
    await derive(password, Buffer.alloc(16), this.params)
    return false
  }
}
