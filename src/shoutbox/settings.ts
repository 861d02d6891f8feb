import type { AddonContext } from '../sdk/index.js'
import type { Settings } from './schemas.js'

/** The addon's settings as they are now in the database (every host process reads the same). */
export async function readSettings (ctx: AddonContext): Promise<Settings> {
  const values = await ctx.config.all()
  return { maxShouts: values.maxShouts as number | null, maxMessageLength: values.maxMessageLength as number }
}
