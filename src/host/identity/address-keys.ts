import { createHmac, hkdfSync } from 'node:crypto'
import { clientKey } from '../../sdk/client-address.js'

/** What a day's key is for: the database's counters, or the log's pseudonyms (never the same key). */
export type AddressKeyUse = 'counters' | 'log'

/** Characters of a client's pseudonym in the log: 72 bits, plenty to tell a day's clients apart. */
const PSEUDONYM_LENGTH = 12

/**
 * The key of `day` (`YYYY-MM-DD`, UTC) for `use`, derived from the address secret with
 * HKDF-SHA256. Exported for the test that attacks a copy of the database with it.
 */
export function dayKey (secret: string, day: string, use: AddressKeyUse): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'shoutbox address keys', `${use} ${day}`, 32))
}

/** The HMAC that stands for `address` under `key` (base64url). */
function addressHmac (key: Buffer, address: string): string {
  return createHmac('sha256', key).update(clientKey(address)).digest('base64url')
}

/**
 * What the database holds instead of a client's address: an HMAC of the client (its
 * address, an IPv6 client's /64: `clientKey`) under a key of the UTC day. The day's key
 * is derived from the address secret (ADDRESS_SECRET, or the data folder's file: see
 * `loadAddressSecret`), which the database never holds, so a copy of the database alone
 * ties no counter to an address. Every process given the same secret derives the same
 * keys, so they share the counters. A past day's key is forgotten without deleting
 * anything: its date is part of its derivation, and nothing derives it again. The cost:
 * per-address counters start again at midnight UTC (the longest of them spans an hour).
 */
export class AddressKeys {
  private current: { day: string, counters: Buffer, log: Buffer } | undefined

  constructor (private readonly secret: string, private readonly now: () => number = Date.now) {}

  /**
   * A key that never changes, derived from the address secret for `use` (the signature of
   * an unsubscribe link): what a copy of the database alone cannot forge.
   */
  signingKey (use: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.secret, 'shoutbox signed links', use, 32))
  }

  /** The key that stands for `address` in today's counters (base64url). */
  of (address: string): string {
    return addressHmac(this.keysOfToday().counters, address)
  }

  /**
   * The keys that stood for `address` today and yesterday (UTC), today's first: what a rule
   * that must outlive midnight (a day-long mute) compares with what it stored.
   */
  recent (address: string): string[] {
    const yesterday = new Date(this.now() - 86_400_000).toISOString().slice(0, 10)
    return [this.of(address), addressHmac(dayKey(this.secret, yesterday, 'counters'), address)]
  }

  /**
   * What stands for `address` in today's log lines: a short HMAC under a key of its own,
   * so lines of one client can be told apart within a day, and tied neither to its
   * address nor to its counters without the secret.
   */
  pseudonym (address: string): string {
    return addressHmac(this.keysOfToday().log, address).slice(0, PSEUDONYM_LENGTH)
  }

  private keysOfToday (): { counters: Buffer, log: Buffer } {
    const day = new Date(this.now()).toISOString().slice(0, 10)
    if (this.current?.day !== day) {
      this.current = { day, counters: dayKey(this.secret, day, 'counters'), log: dayKey(this.secret, day, 'log') }
    }
    return this.current
  }
}
