import type { NamedMigration } from './migrate.js'
import * as platform from './migrations/001-platform.js'

/** The host's own schema, in order. */
export const hostMigrations: readonly NamedMigration[] = [platform]
