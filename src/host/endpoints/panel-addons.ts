import { NotFound, PanelApi, Successful, Type, type SignedInCall } from '../../sdk/index.js'
import type { Platform } from '../platform.js'

export class ListAddons extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/addons'
  readonly schema = {}

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_ADDONS')
    const states: Array<{ addon_id: string, enabled: boolean }> = await this.platform.db('addon_state').select()
    const enabled = new Map(states.map(s => [s.addon_id, s.enabled]))
    const addons = this.platform.addons.map(({ manifest, source }) => ({
      id: manifest.id,
      name: manifest.name,
      version: manifest.version,
      description: manifest.description ?? '',
      enabled: enabled.get(manifest.id) ?? true,
      /** Running in this process now; differs from `enabled` until the restart. */
      active: this.platform.runtimes.get(manifest.id)?.state === 'started',
      builtin: source.builtin
    }))
    return new Successful({ addons })
  }
}

const SetAddonSchema = {
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  body: Type.Object({ enabled: Type.Boolean() })
}

/** Takes effect at the next restart; a disabled addon's data is kept. */
export class SetAddonEnabled extends PanelApi<typeof SetAddonSchema> {
  readonly method = 'PUT'
  readonly path = '/api/panel/addons/:id'
  readonly schema = SetAddonSchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall<typeof SetAddonSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_ADDONS')
    const addonId = call.params.id
    if (!this.platform.addons.some(a => a.manifest.id === addonId)) throw new NotFound()
    const { enabled } = call.body
    await this.platform.db.transaction(async trx => {
      await trx('addon_state').insert({ addon_id: addonId, enabled }).onConflict('addon_id').merge()
      await this.platform.activity.write('host', {
        type: enabled ? 'ENABLED_ADDON' : 'DISABLED_ADDON', user: call.user, details: { addon: addonId }
      }, trx)
    })
    return new Successful({ restartRequired: true })
  }
}
