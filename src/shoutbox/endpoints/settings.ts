import { NoPermission, PanelApi, Successful, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { announceChange } from '../changes/notice.js'
import { SETTINGS_EXAMPLE, SETTINGS_KEYS, SettingsSchema, UpdateSettingsSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'
import { assertReactionSet } from '../reactions.js'

/** GET /api/panel/shoutbox/config */
export class GetSettings extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/config'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = { ok: okAnswer(SettingsSchema.properties, SETTINGS_EXAMPLE), errors: [NoPermission] }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    return new Successful(await ShoutboxSettings.of(call.ctx).read())
  }
}

/**
 * PUT /api/panel/shoutbox/config — the keys sent are changed; the next list request of
 * every process sees them. A key that is not a setting is refused (a misspelt one would
 * otherwise change nothing and say ok). What changed is logged; a request that changes
 * nothing is answered the same and leaves no entry.
 */
export class UpdateSettings extends PanelApi<typeof UpdateSettingsSchema> {
  readonly method = 'PUT'
  readonly path = '/api/panel/shoutbox/config'
  override readonly closedToTokens = true
  readonly schema = UpdateSettingsSchema
  override readonly answers = { ok: okAnswer(SettingsSchema.properties, SETTINGS_EXAMPLE, 'The settings after the change'), errors: [NoPermission] }

  async handle (call: SignedInCall<typeof UpdateSettingsSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, body } = call
    if (body.reactions !== undefined) assertReactionSet(body.reactions)
    const settings = ShoutboxSettings.of(ctx)
    const current: Record<string, unknown> = await settings.read()
    const changes = Object.fromEntries(Object.entries(body).filter(([key, value]) => (SETTINGS_KEYS as readonly string[]).includes(key) && !sameValue(current[key], value)))
    if (Object.keys(changes).length === 0) return new Successful(current)
    await ctx.transaction(async trx => {
      await ctx.config.set(changes, trx)
      await ctx.activityLog.write({ type: 'UPDATED_SHOUTBOX_SETTINGS', user, details: changes }, trx)
      await announceChange(ctx, 'settings', [], trx)
    })
    return new Successful(await settings.read())
  }
}

/** Settings are scalars or lists of strings (the reactions): equal when every item is. */
function sameValue (a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i])
  return a === b
}
