import type { FastifyPluginAsync } from 'fastify'
import { ADDON } from './brands.js'
import type { AddonContext, Database } from './context.js'

export interface AddonDefinition {
  /** Runs inside the addon's own encapsulated Fastify context (hooks, decorators). */
  readonly plugin?: FastifyPluginAsync
  /** After setup, once the addon's migrations ran: warm caches, subscribe to the cluster. */
  readonly start?: (ctx: AddonContext) => Promise<void> | void
  /** When the host stops. */
  readonly stop?: (ctx: AddonContext) => Promise<void> | void
}

export type Addon = AddonDefinition & { readonly [ADDON]: true }

/** The default export of an addon's entry module. */
export function defineAddon (definition: AddonDefinition = {}): Addon {
  return { ...definition, [ADDON]: true }
}

/** A migration module in the addon's `migrations/` folder exports `up` (run once, in order of file name). */
export interface Migration {
  up (db: Database): Promise<void>
}
