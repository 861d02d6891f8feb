import { BadRequest, PanelApi, Successful, Type, type SignedInCall } from '../../sdk/index.js'
import type { Platform } from '../platform.js'
import { IdParamsSchema, PermissionNodeSchema } from '../schemas.js'

const RoleBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }),
  permissions: Type.Array(PermissionNodeSchema, { maxItems: 200 })
})

export class ListRoles extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/roles'
  readonly schema = {}

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_ROLES')
    return new Successful({ roles: await this.platform.roles.list() })
  }
}

const CreateRoleSchema = { body: RoleBodySchema }

export class CreateRole extends PanelApi<typeof CreateRoleSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/roles'
  readonly schema = CreateRoleSchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall<typeof CreateRoleSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_ROLES')
    const input = { name: call.body.name.trim(), permissions: knownNodes(this.platform, call.body.permissions) }
    const role = await this.platform.db.transaction(async trx => {
      const created = await this.platform.roles.create(input, trx)
      await this.platform.activity.write('host', { type: 'CREATED_ROLE', user: call.user, details: { role: created.name } }, trx)
      return created
    })
    return new Successful({ role })
  }
}

const UpdateRoleSchema = { params: IdParamsSchema, body: RoleBodySchema }

/** Changes apply to the role's users on their next request, in every process: sessions forget their roles. */
export class UpdateRole extends PanelApi<typeof UpdateRoleSchema> {
  readonly method = 'PUT'
  readonly path = '/api/panel/roles/:id'
  readonly schema = UpdateRoleSchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall<typeof UpdateRoleSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_ROLES')
    const input = { name: call.body.name.trim(), permissions: knownNodes(this.platform, call.body.permissions) }
    const role = await this.platform.db.transaction(async trx => {
      const updated = await this.platform.roles.update(call.params.id, input, trx)
      await this.platform.sessions.identityChanged(trx)
      await this.platform.activity.write('host', { type: 'UPDATED_ROLE', user: call.user, details: { role: updated.name } }, trx)
      return updated
    })
    return new Successful({ role })
  }
}

/** Only nodes the platform defines; `*` stays the admin role's alone. */
function knownNodes (platform: Platform, nodes: readonly string[]): string[] {
  const known = new Set(platform.permissionCatalogue().map(p => p.node))
  const unknown = nodes.find(node => !known.has(node))
  if (unknown !== undefined) throw new BadRequest({ bodyValidationError: `body/permissions has an unknown permission node "${unknown}"` })
  return [...nodes]
}
