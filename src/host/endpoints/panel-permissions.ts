import { PanelApi, Successful, type SignedInCall } from '../../sdk/index.js'
import type { Platform } from '../platform.js'

/** Every permission the host and the enabled addons define, with localised title and description. */
export class ListPermissions extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/permissions'
  readonly schema = {}

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle ({ locale }: SignedInCall): Promise<Successful> {
    const { i18n } = this.platform
    const permissions = this.platform.permissionCatalogue().map(p => ({
      node: p.node,
      key: p.key,
      addonId: p.owner === 'host' ? null : p.owner,
      title: i18n.t(p.owner, locale, `permissions.${p.key}.title`),
      description: i18n.t(p.owner, locale, `permissions.${p.key}.description`)
    }))
    return new Successful({ permissions })
  }
}
