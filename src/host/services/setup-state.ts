import type { Knex } from 'knex'

/** Whether setup is finished, kept in the database so every host process agrees on it. */
export class SetupState {
  /** Setup is never undone: once seen finished, no need to ask the database again. */
  private setupDone = false

  constructor (private readonly db: Knex) {}

  async isSetupDone (): Promise<boolean> {
    if (this.setupDone) return true
    const row = await this.db('settings').where({ key: 'setup' }).first('key')
    this.setupDone = row !== undefined
    return this.setupDone
  }

  /**
   * Records setup as finished; false if another request (or process) got there first.
   * Call it first in the setup transaction: a concurrent attempt waits on this row.
   */
  async finishSetup (trx: Knex.Transaction): Promise<boolean> {
    const inserted = await trx('settings')
      .insert({ key: 'setup', value: JSON.stringify({ finishedAt: Date.now() }) })
      .onConflict('key').ignore()
      .returning('key')
    return inserted.length === 1
  }
}
