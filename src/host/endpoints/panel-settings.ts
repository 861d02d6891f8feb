import { NoPermission, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { DefaultRoleNotAllowed, UnknownRole } from '../errors.js'
import { MailUnavailable } from '../mail/errors.js'
import { SiteSettingsFields } from '../schemas.js'

/** GET /api/panel/settings — the site's settings, and the roles new accounts may get. */
export class GetSiteSettings extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/settings'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      ...SiteSettingsFields,
      roles: Type.Array(Type.Object({ id: Type.Integer({ minimum: 1 }), name: Type.String() }, { additionalProperties: false }), {
        description: 'the roles defaultRoleId may name (none that opens the panel)'
      })
    }, { signUp: true, defaultRoleId: 2, activityKeepDays: null, erasure: 'anonymise', verifyEmail: false, roles: [{ id: 2, name: 'member' }] }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    const { siteSettings } = call.ctx.identity
    return new Successful({ ...await siteSettings.read(), roles: await siteSettings.eligibleRoles() })
  }
}

const UpdateSiteSettingsSchema = {
  body: Type.Object({
    signUp: Type.Optional(Type.Boolean()),
    defaultRoleId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    activityKeepDays: Type.Optional(SiteSettingsFields.activityKeepDays),
    erasure: Type.Optional(SiteSettingsFields.erasure),
    verifyEmail: Type.Optional(SiteSettingsFields.verifyEmail)
  }, { minProperties: 1 })
}

/** PUT /api/panel/settings — changes the keys sent, logged UPDATED_SETTINGS; answers the settings. */
export class UpdateSiteSettings extends PanelApi<typeof UpdateSiteSettingsSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/panel/settings'
  override readonly closedToTokens = true
  readonly schema = UpdateSiteSettingsSchema
  override readonly answers = {
    ok: okAnswer(SiteSettingsFields, { signUp: true, defaultRoleId: 2, activityKeepDays: 365, erasure: 'anonymise', verifyEmail: true }),
    errors: [NoPermission, UnknownRole, DefaultRoleNotAllowed, MailUnavailable]
  }

  async handle (call: SignedInCall<typeof UpdateSiteSettingsSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    const { ctx, user, body } = call
    // Asking for confirmed addresses while no mail can go would keep every newcomer from posting.
    if (body.verifyEmail === true) ctx.mail.requireAvailable()
    const changes = {
      ...(body.signUp === undefined ? {} : { signUp: body.signUp }),
      ...(body.defaultRoleId === undefined ? {} : { defaultRoleId: body.defaultRoleId }),
      ...(body.activityKeepDays === undefined ? {} : { activityKeepDays: body.activityKeepDays }),
      ...(body.erasure === undefined ? {} : { erasure: body.erasure }),
      ...(body.verifyEmail === undefined ? {} : { verifyEmail: body.verifyEmail })
    }
    const settings = await ctx.transaction(async trx => {
      const stored = await ctx.identity.siteSettings.write(changes, user, trx)
      // The site stopped asking for confirmed addresses: those still waiting may post now.
      if (body.verifyEmail === false && await ctx.identity.users.confirmEveryEmail(trx) > 0) await ctx.identity.sessions.identityChanged(trx)
      await ctx.activityLog.write({ type: 'UPDATED_SETTINGS', user, details: changes }, trx)
      return stored
    })
    return new Successful(settings)
  }
}
