import {
  Api, PlatformAlreadyInstalled, SetupApi, SetupFinished, Successful, type PublicCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { ADMIN_ROLE_ID } from '../identity/roles.js'
import { signIn } from '../identity/sign-in.js'
import { NewAccountSchema, type NewAccount } from '../schemas.js'

export class SetupStatus extends Api<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/setup/status'
  readonly schema = {}
  override readonly availableBeforeSetup = true

  async handle ({ ctx }: PublicCall<object, HostContext>): Promise<Successful> {
    return new Successful({ setupDone: await ctx.identity.setup.isSetupDone() })
  }
}

const FinishSetupSchema = { body: NewAccountSchema }

/** Creates the first administrator and finishes setup; the admin is signed in at once. */
export class FinishSetup extends SetupApi<typeof FinishSetupSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/setup/finish'
  readonly schema = FinishSetupSchema

  async handle (call: PublicCall<typeof FinishSetupSchema, HostContext>): Promise<Successful> {
    const user = await finishSetup(call.ctx, call.body)
    return new Successful({ user: await signIn(call, user) })
  }
}

/** Shared by the endpoint and the `create-admin` command. */
export async function finishSetup (ctx: HostContext, account: NewAccount) {
  const { identity } = ctx
  const passwordHash = await identity.passwords.hash(account.password)
  const user = await ctx.transaction(async trx => {
    if (!await identity.setup.finishSetup(trx)) throw new PlatformAlreadyInstalled()
    const admin = await identity.users.create({ ...account, passwordHash, roleId: ADMIN_ROLE_ID }, trx)
    await ctx.activityLog.write({ type: 'SETUP_FINISHED', user: admin }, trx)
    return admin
  })
  await ctx.addons.start()
  ctx.events.emit(SetupFinished, { admin: { id: user.id, username: user.username } })
  return user
}
