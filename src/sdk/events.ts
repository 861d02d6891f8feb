import { LISTENER, markSdkBase } from './brands.js'
import type { Actor, AddonContext } from './context.js'

/**
 * A typed event. Events are matched by name, so another addon can listen to Shoutbox's
 * events by declaring the same name with the payload type it expects.
 */
export interface EventType<T> {
  readonly name: string
  /** Type-level only: carries the payload type. */
  readonly payload?: T
}

export function defineEvent<T> (name: string): EventType<T> {
  return Object.freeze({ name })
}

/**
 * Reacts to one event. An addon ships listener classes in its `listeners/` folder; the
 * host finds every exported one. A listener that throws is logged and changes nothing else.
 */
export abstract class Listener<T = unknown> {
  static readonly [LISTENER] = true
  static {
    markSdkBase(this)
  }

  abstract readonly event: EventType<T>
  abstract handle (payload: T, ctx: AddonContext): Promise<void> | void
}

/** The host's events. */
export const SetupFinished = defineEvent<{ readonly admin: Actor }>('host.setup-finished')
export const AddonStarted = defineEvent<{ readonly addonId: string }>('host.addon-started')
export const AddonStopping = defineEvent<{ readonly addonId: string }>('host.addon-stopping')
export const UserSignedIn = defineEvent<{ readonly user: Actor, readonly ip: string }>('host.user-signed-in')
