import { BadRequest, IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type MemberViewer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { assertHoldsAll, assertNotOwnRole } from '../identity/granting.js'
import { RoleIsBuiltIn, RoleNameTaken } from '../errors.js'
import { PermissionNodeSchema, ROLE_EXAMPLE, RoleSchema } from '../schemas.js'

const RoleBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }),
  permissions: Type.Array(PermissionNodeSchema, { maxItems: 200 })
})

export class ListRoles extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/roles'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ roles: Type.Array(RoleSchema) }, {
      roles: [{ id: 1, name: 'admin', permissions: ['*'], builtin: true }, { id: 2, name: 'member', permissions: ['addon.shoutbox.post'], builtin: true }, ROLE_EXAMPLE]
    }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_ROLES')
    return new Successful({ roles: await call.ctx.identity.roles.list() })
  }
}

const CreateRoleSchema = { body: RoleBodySchema }

export class CreateRole extends PanelApi<typeof CreateRoleSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/roles'
  override readonly closedToTokens = true
  readonly schema = CreateRoleSchema
  override readonly answers = { ok: okAnswer({ role: RoleSchema }, { role: ROLE_EXAMPLE }), errors: [NoPermission, RoleNameTaken] }

  async handle (call: SignedInCall<typeof CreateRoleSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_ROLES')
    const { ctx } = call
    const input = { name: call.body.name.trim(), permissions: await knownNodes(ctx, call.viewer, call.body.permissions) }
    assertHoldsAll(call.user, input.permissions)
    const role = await ctx.transaction(async trx => {
      const created = await ctx.identity.roles.create(input, trx)
      await ctx.activityLog.write({ type: 'CREATED_ROLE', user: call.user, details: { role: created.name } }, trx)
      return created
    })
    return new Successful({ role })
  }
}

const UpdateRoleSchema = { params: IdParamsSchema, body: RoleBodySchema }

/**
 * Changes apply to the role's users on their next request, in every process: sessions
 * forget their roles. Only a caller holding everything the role holds, before and after,
 * may change it, and never the caller's own role.
 */
export class UpdateRole extends PanelApi<typeof UpdateRoleSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/panel/roles/:id'
  override readonly closedToTokens = true
  readonly schema = UpdateRoleSchema
  override readonly answers = {
    ok: okAnswer({ role: RoleSchema }, { role: ROLE_EXAMPLE }),
    errors: [NoPermission, NotFound, RoleIsBuiltIn, RoleNameTaken]
  }

  async handle (call: SignedInCall<typeof UpdateRoleSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_ROLES')
    const { ctx } = call
    const input = { name: call.body.name.trim(), permissions: await knownNodes(ctx, call.viewer, call.body.permissions) }
    const role = await ctx.transaction(async trx => {
      const updated = await ctx.identity.roles.update(Number(call.params.id), input, current => {
        assertNotOwnRole(call.user, current.id)
        assertHoldsAll(call.user, [...current.permissions, ...input.permissions])
      }, trx)
      await ctx.identity.sessions.identityChanged(trx)
      await ctx.activityLog.write({ type: 'UPDATED_ROLE', user: call.user, details: { role: updated.name } }, trx)
      return updated
    })
    return new Successful({ role })
  }
}

/** Only nodes the platform defines (addons' run-time nodes too); `*` stays the admin role's alone. */
async function knownNodes (ctx: HostContext, viewer: MemberViewer, nodes: readonly string[]): Promise<string[]> {
  // Addons' run-time nodes as this caller may know of them: one it may not (a hidden room's) is unknown.
  const known = new Set([...ctx.addons.permissionCatalogue(), ...await ctx.addons.runtimePermissions('en', viewer)].map(p => p.node))
  const unknown = nodes.find(node => !known.has(node))
  if (unknown !== undefined) throw new BadRequest({ bodyValidationError: `body/permissions has an unknown permission node "${unknown}"` })
  return [...nodes]
}
