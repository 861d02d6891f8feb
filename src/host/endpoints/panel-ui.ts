import fs from 'node:fs'
import path from 'node:path'
import { PanelApi, Successful, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

/** The running addons and the panel module each contributes (its pages and strings). */
export class PanelModules extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/ui/addons'
  readonly schema = {}

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
