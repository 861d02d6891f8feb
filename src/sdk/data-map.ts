/**
 * The data map: every table an owner (the host, or an addon) keeps, and for each column
 * whether it holds something of a person's — text they wrote, a name, an address, an
 * e-mail — and if so, what the person's export, their erasure, an edit of the text and a
 * delete of it do to that copy. A test reads the database's own catalogue and fails for a
 * column no map names, so a new table cannot be forgotten; erasure walks it (the rows of
 * tables marked `erase: 'rows'`), and each owner's export and erasure follow what it says.
 */

/** What a column holds of a person. */
export type Holds = 'text' | 'name' | 'address' | 'email' | 'secret'

/** One column that holds something of a person's, and what becomes of it. */
export interface PersonalColumn {
  readonly holds: Holds
  /** In the person's export: how (or why not). */
  readonly export: string
  /** When the person is erased. */
  readonly erase: string
  /** When the text it copies is edited (a text column that copies a shout's). */
  readonly edit?: string
  /** When what it copies is deleted. */
  readonly delete?: string
}

export interface MappedTable {
  readonly table: string
  /** The column naming whose row it is (a user id), when each row is one person's. */
  readonly person?: string
  /**
   * `rows`: erasure deletes the rows whose `person` is the erased account — the host does,
   * walking the map, after the owner's `eraseUser` took out what needs more care.
   */
  readonly erase?: 'rows'
  /** Every column holding something of a person's. */
  readonly personal: Readonly<Record<string, PersonalColumn>>
  /** Every other column: ids, times, flags, counts, settings — nothing of a person's. */
  readonly other: readonly string[]
}

export type DataMap = readonly MappedTable[]
