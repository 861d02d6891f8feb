import { NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

export class ListAddons extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/addons'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      addons: Type.Array(Type.Object({
        id: Type.String(),
        name: Type.String(),
        version: Type.String(),
        description: Type.String(),
        enabled: Type.Boolean({ description: 'enabled for the next start' }),
        active: Type.Boolean({ description: 'running in this process now' }),
        builtin: Type.Boolean({ description: 'the repository\'s own copy' })
      }, { additionalProperties: false }))
    }, {
      addons: [{ id: 'shoutbox', name: 'Shoutbox', version: '0.1.0', description: 'A shout board', enabled: true, active: true, builtin: true }]
    }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_ADDONS')
    const { addons } = call.ctx
    const enabled = await addons.states.all()
    return new Successful({
      addons: addons.found.map(({ manifest, source }) => ({
        id: manifest.id,
        name: manifest.name,
        version: manifest.version,
        description: manifest.description ?? '',
        enabled: enabled.get(manifest.id) ?? true,
        /** Running in this process now; differs from `enabled` until the restart. */
        active: addons.runtimes.get(manifest.id)?.started === true,
        builtin: source.builtin
      }))
    })
  }
}

const SetAddonSchema = {
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  body: Type.Object({ enabled: Type.Boolean() })
}

/** Takes effect at the next restart; a disabled addon's data is kept. */
export class SetAddonEnabled extends PanelApi<typeof SetAddonSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/panel/addons/:id'
  override readonly closedToTokens = true
  readonly schema = SetAddonSchema
  override readonly answers = {
    ok: okAnswer({ restartRequired: Type.Literal(true) }, { restartRequired: true }, 'Takes effect at the next restart'),
    errors: [NoPermission, NotFound]
  }

  async handle (call: SignedInCall<typeof SetAddonSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_ADDONS')
    const { ctx } = call
    const addonId = call.params.id
    if (!ctx.addons.found.some(a => a.manifest.id === addonId)) throw new NotFound()
    const { enabled } = call.body
    await ctx.transaction(async trx => {
      await ctx.addons.states.set(addonId, enabled, trx)
      await ctx.activityLog.write({ type: enabled ? 'ENABLED_ADDON' : 'DISABLED_ADDON', user: call.user, details: { addon: addonId } }, trx)
    })
    return new Successful({ restartRequired: true })
  }
}
