import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Database, Transaction } from '../../sdk/index.js'
import { SETTINGS_TABLE } from '../database/tables.js'

const SETUP = 'setup'
const SETUP_TOKEN = 'setup-token'

/**
 * Whether setup is finished, and the one-time token that finishing it needs. Both are
 * kept in the database, so every host process agrees on them: the first process to start
 * makes the token, the others read the same one.
 */
export class SetupState {
  /** Setup is never undone: once seen finished, no need to ask the database again. */
  private setupDone = false

  /** @param configuredToken `SETUP_TOKEN`, when the operator chose the token (scripted installs) */
  constructor (private readonly db: Database, private readonly configuredToken: string | undefined) {}

  async isSetupDone (): Promise<boolean> {
    if (this.setupDone) return true
    const row = await this.db(SETTINGS_TABLE).where({ key: SETUP }).first('key')
    this.setupDone = row !== undefined
    return this.setupDone
  }

  /** The token that finishes setup; undefined once setup is done. */
  async token (): Promise<string | undefined> {
    if (await this.isSetupDone()) return undefined
    if (this.configuredToken !== undefined) return this.configuredToken
    // Made only while setup is not done, in one statement: a token made as setup finishes would outlive it.
    await this.db.raw(`insert into ${SETTINGS_TABLE} (key, value) select ?, ?::jsonb
      where not exists (select 1 from ${SETTINGS_TABLE} where key = ?) on conflict (key) do nothing`,
    [SETUP_TOKEN, JSON.stringify(randomBytes(24).toString('base64url')), SETUP])
    const row = await this.db(SETTINGS_TABLE).where({ key: SETUP_TOKEN }).first<{ value: string } | undefined>('value')
    return row?.value
  }

  /** True when `given` is the setup token (compared in constant time). */
  async isToken (given: string | undefined): Promise<boolean> {
    const expected = await this.token()
    if (expected === undefined || given === undefined) return false
    return timingSafeEqual(digest(given), digest(expected))
  }

  /**
   * Records setup as finished and forgets the token; false if another request (or
   * process) got there first. Call it first in the setup transaction: a concurrent
   * attempt waits on this row.
   */
  async finishSetup (trx: Transaction): Promise<boolean> {
    const inserted = await trx(SETTINGS_TABLE)
      .insert({ key: SETUP, value: JSON.stringify({ finishedAt: Date.now() }) })
      .onConflict('key').ignore()
      .returning('key')
    if (inserted.length === 1) await trx(SETTINGS_TABLE).where({ key: SETUP_TOKEN }).delete()
    return inserted.length === 1
  }
}

function digest (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
