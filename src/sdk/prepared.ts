import { createHash } from 'node:crypto'
import type { SqlPart } from './context.js'

/** The most statement texts named; a text beyond them runs as an unnamed statement. */
const MAX_NAMED = 64

/** The name of each statement text named so far. */
const names = new Map<string, string>()

/**
 * `statement`, marked to be prepared by each connection that runs it: PostgreSQL parses
 * and plans it there once and afterwards only runs it (the pg driver's named statements,
 * through knex's `options`; the embedded database ignores the name). For a statement run
 * often whose text never changes, only its values. A publish's statement cost PostgreSQL
 * 2.5 ms of CPU unnamed and 0.9 named, on 2026-11-27 (docs/performance.md).
 *
 * The name is made from the text, so a statement whose text differs from one call to the
 * next gets another name (never another statement under the same name, which the driver
 * refuses). Each name is a statement every connection keeps, so past `MAX_NAMED` texts
 * (a caller whose text carries a value) the rest run unnamed, as without this.
 */
export function prepared<T extends SqlPart> (statement: T): T {
  const { sql } = statement.toSQL()
  let name = names.get(sql)
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return statement
    name = `prepared_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`
    names.set(sql, name)
  }
  return statement.options({ name })
}
