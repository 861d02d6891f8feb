import type { AddonContext } from '../sdk/index.js'

/**
 * `create`, made once per addon context and then remembered: the host gives a started
 * addon one context, so this is one instance per running copy of the addon (and a
 * fresh one for each app a test builds).
 */
export function perContext<T> (create: (ctx: AddonContext) => T): (ctx: AddonContext) => T {
  const instances = new WeakMap<AddonContext, T>()
  return ctx => {
    let instance = instances.get(ctx)
    if (instance === undefined) {
      instance = create(ctx)
      instances.set(ctx, instance)
    }
    return instance
  }
}
