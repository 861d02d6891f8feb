import fs from 'node:fs'
import path from 'node:path'
import { PanelApi, Successful } from '../../sdk/index.js'
import type { Platform } from '../platform.js'

/** The running addons and the panel module each contributes (its pages and strings). */
export class PanelModules extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/ui/addons'
  readonly schema = {}

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (): Promise<Successful> {
    const addons = [...this.platform.runtimes.values()]
      .filter(runtime => runtime.state === 'started')
      .map(({ id, addon }) => ({
        id,
        name: addon.manifest.name,
        panel: fs.existsSync(path.join(addon.source.uiDir, 'panel.js')) ? `/addons/${id}/ui/panel.js` : null
      }))
    return new Successful({ addons })
  }
}
