import { PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

/**
 * GET /api/panel/overview — the host's figures for the panel's overview page: how many
 * active accounts hold the built-in member role, and how many active accounts of people
 * there are in all (staff included, bots not): a sign-up given the Moderators role leaves
 * the first figure but stays in the second. Addons add their own figures through
 * their panel module (`addOverview`) and endpoints of their own.
 */
export class PanelOverview extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/overview'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      members: Type.Integer({ minimum: 0, description: 'active accounts with the built-in member role' }),
      accounts: Type.Integer({ minimum: 0, description: 'active accounts of people, whatever their role (bots are not counted)' })
    }, { members: 12, accounts: 15 })
  }

  async handle ({ ctx }: SignedInCall<object, HostContext>): Promise<Successful> {
    const { roles, users } = ctx.identity
    return new Successful({ members: await users.countWithRole((await roles.member()).id), accounts: await users.countPeople() })
  }
}
