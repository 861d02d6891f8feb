/** PostgreSQL error codes the repositories translate into platform errors. */
export const PG_UNIQUE_VIOLATION = '23505'
export const PG_FOREIGN_KEY_VIOLATION = '23503'
/** A number too large for its column, e.g. an id past int4 in a path. */
export const PG_NUMERIC_OUT_OF_RANGE = '22003'
/** A statement stopped: by its time limit (`statement_timeout`), or cancelled. */
export const PG_QUERY_CANCELED = '57014'

export interface PgError {
  readonly code: string
  readonly constraint?: string
}

export function isPgError (error: unknown, code?: string): error is PgError {
  if (typeof error !== 'object' || error === null) return false
  const pgCode = (error as { code?: unknown }).code
  return typeof pgCode === 'string' && /^[0-9A-Z]{5}$/.test(pgCode) && (code === undefined || pgCode === code)
}

/** The constraint a violation names; PGlite only puts it in the message. */
export function violatedConstraint (error: PgError & { message?: string }): string {
  return error.constraint ?? /constraint "([^"]+)"/.exec(error.message ?? '')?.[1] ?? ''
}
