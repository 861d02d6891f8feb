import { createHmac, randomBytes } from 'node:crypto'
import type { Database } from '../../sdk/index.js'
import { clientKey } from '../../sdk/client-address.js'
import { ADDRESS_KEYS_TABLE } from '../database/tables.js'

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * What the database holds instead of a client's address: an HMAC of the client (its
 * address, an IPv6 client's /64: `clientKey`) under a key of the day. Each UTC day has its
 * own random key, made by the first process that needs it and shared through the
 * database (`address_keys`); keys older than yesterday are deleted, so a counter's key
 * from before can no longer be tied to any address, even by someone holding the whole
 * database. The cost: per-address counters start again at midnight UTC (the longest of
 * them spans an hour).
 */
export class AddressKeys {
  private current: { day: string, key: Buffer } | undefined

  constructor (private readonly db: Database, private readonly now: () => number = Date.now) {}

  /** The key that stands for `address` today (base64url). */
  async of (address: string): Promise<string> {
    const key = await this.keyOfToday()
    return createHmac('sha256', key).update(clientKey(address)).digest('base64url')
  }

  private async keyOfToday (): Promise<Buffer> {
    const day = new Date(this.now()).toISOString().slice(0, 10)
    if (this.current?.day === day) return this.current.key
    await this.db(ADDRESS_KEYS_TABLE).insert({ day, key: randomBytes(32).toString('base64url') }).onConflict('day').ignore()
    const row: { key: string } = await this.db(ADDRESS_KEYS_TABLE).where({ day }).first('key')
    const yesterday = new Date(this.now() - DAY_MS).toISOString().slice(0, 10)
    await this.db(ADDRESS_KEYS_TABLE).where('day', '<', yesterday).delete()
    this.current = { day, key: Buffer.from(row.key, 'base64url') }
    return this.current.key
  }
}
