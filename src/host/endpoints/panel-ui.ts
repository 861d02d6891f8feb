import fs from 'node:fs'
import path from 'node:path'
import { PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

/** The running addons and the panel module each contributes (its pages and strings). */
export class PanelModules extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/ui/addons'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      addons: Type.Array(Type.Object({
        id: Type.String(),
        name: Type.String(),
        panel: Type.Union([Type.String(), Type.Null()], { description: 'the URL of its panel module, if it has one' })
      }, { additionalProperties: false }))
    }, { addons: [{ id: 'shoutbox', name: 'Shoutbox', panel: '/addons/shoutbox/ui/panel.js' }] })
  }

  async handle ({ ctx }: SignedInCall<object, HostContext>): Promise<Successful> {
    const addons = [...ctx.addons.runtimes.values()]
      .filter(runtime => runtime.started)
      .map(({ id, addon }) => ({
        id,
        name: addon.manifest.name,
        panel: fs.existsSync(path.join(addon.source.uiDir, 'panel.js')) ? `/addons/${id}/ui/panel.js` : null
      }))
    return new Successful({ addons })
  }
}
