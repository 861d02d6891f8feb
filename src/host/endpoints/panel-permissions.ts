import { PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { HOST_ID } from '../addons/loader.js'

/** Every permission the host and the enabled addons define (in manifests, and as they run), with localised title and description. */
export class ListPermissions extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/permissions'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      permissions: Type.Array(Type.Object({
        node: Type.String(),
        key: Type.String(),
        addonId: Type.Union([Type.String(), Type.Null()], { description: 'null for the host\'s own' }),
        title: Type.String(),
        description: Type.String()
      }, { additionalProperties: false }))
    }, {
      permissions: [{ node: 'panel.access', key: 'PANEL_ACCESS', addonId: null, title: 'Panel access', description: 'Open the panel' }]
    })
  }

  async handle ({ ctx, locale, viewer }: SignedInCall<object, HostContext>): Promise<Successful> {
    const permissions = ctx.addons.permissionCatalogue().map(p => ({
      node: p.node,
      key: p.key,
      addonId: p.owner === HOST_ID ? null : p.owner,
      title: ctx.strings.t(p.owner, locale, `permissions.${p.key}.title`),
      description: ctx.strings.t(p.owner, locale, `permissions.${p.key}.description`)
    }))
    // Nodes addons made as they run (a room's) have no key in code: the node names them.
    const made = (await ctx.addons.runtimePermissions(locale, viewer)).map(p => ({ node: p.node, key: p.node, addonId: p.owner, title: p.title, description: p.description }))
    return new Successful({ permissions: [...permissions, ...made] })
  }
}
