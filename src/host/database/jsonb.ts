import type { Database, SqlPart } from '../../sdk/index.js'

/*
 * SQL for the copies of a person's text and name kept in jsonb columns (notifications'
 * data, deliveries' data, activity entries' details): what an edit, a delete and an
 * erasure do to them, written once.
 */

/** The jsonb `column` without its keys `fields`. */
export function jsonbWithout (db: Database, column: string, fields: readonly string[]): SqlPart {
  return db.raw(`(?? ${fields.map(() => '- ?::text').join(' ')})`, [column, ...fields])
}

/** The jsonb `value` with the string `name`, wherever it stands whole, replaced by `replacement`. */
export function jsonbRenamed (db: Database, value: SqlPart, name: string, replacement: string): SqlPart {
  return db.raw('replace((?)::text, to_jsonb(?::text)::text, to_jsonb(?::text)::text)::jsonb', [value, name, replacement])
}

/** Whether the jsonb `column` holds the string `name` whole (a value, or a key). */
export function jsonbNames (db: Database, column: string, name: string): SqlPart {
  return db.raw('strpos(??::text, to_jsonb(?::text)::text) > 0', [column, name])
}
