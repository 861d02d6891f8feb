import { createHash } from 'node:crypto'
import type { SqlPart } from './context.js'

/** The most statement texts named for one database; a text beyond them runs as an unnamed statement. */
const MAX_NAMED = 64

/**
 * The name of each statement text named so far, for each database (a knex instance's
 * config, which its transactions share: one pool of connections).
 */
const namesOf = new WeakMap<object, Map<string, string>>()

/**
 * `statement`, marked to be prepared by each connection that runs it: PostgreSQL parses
 * it there once and, after five runs, usually keeps one plan for it instead of planning
 * it each time (the pg driver's named statements, through knex's `options`; the
 * embedded database ignores the name). For a statement run often whose text never
 * changes, only its values; apply it last (a `wrap` after it would change the text).
 * A publish's statement cost PostgreSQL 2.5 ms of CPU unnamed and 0.9 named, on
 * 2026-11-27 (docs/performance.md).
 *
 * The name is made from the text, so a statement whose text differs from one call to the
 * next gets another name (never another statement under the same name, which the driver
 * refuses). Each name is a statement every connection keeps, so past `MAX_NAMED` texts
 * on one database (a caller whose text carries a value) the rest run unnamed, as without
 * this. A text with several statements cannot be prepared: PostgreSQL refuses it.
 */
export function prepared<T extends SqlPart> (statement: T): T {
  const { config } = (statement as unknown as { client: { config: object } }).client
  let names = namesOf.get(config)
  if (names === undefined) namesOf.set(config, names = new Map())
  const { sql } = statement.toSQL()
  let name = names.get(sql)
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return statement
    name = `prepared_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`
    names.set(sql, name)
  }
  return statement.options({ name })
}
