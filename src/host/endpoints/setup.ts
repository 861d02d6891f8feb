import {
  Api, PlatformAlreadyInstalled, SetupApi, SetupFinished, Successful, Type, okAnswer, type PublicCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { EmailTaken, InvalidSetupToken, UsernameTaken } from '../errors.js'
import { ADMIN_ROLE_ID } from '../identity/roles.js'
import { signIn } from '../identity/sign-in.js'
import { NewAccountSchema, SignedInUserSchema, type NewAccount } from '../schemas.js'

export class SetupStatus extends Api<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/setup/status'
  readonly schema = {}
  override readonly availableBeforeSetup = true
  override readonly answers = { ok: okAnswer({ setupDone: Type.Boolean() }, { setupDone: false }) }

  async handle ({ ctx }: PublicCall<object, HostContext>): Promise<Successful> {
    return new Successful({ setupDone: await ctx.identity.setup.isSetupDone() })
  }
}

const FinishSetupSchema = {
  body: Type.Composite([NewAccountSchema, Type.Object({ setupToken: Type.Optional(Type.String({ maxLength: 200 })) })])
}

/**
 * Creates the first administrator and finishes setup; the admin is signed in at once.
 * Only whoever holds the setup token may: a fresh install reachable from the internet
 * (or through DNS rebinding) is not finished by the first stranger to find it.
 */
export class FinishSetup extends SetupApi<typeof FinishSetupSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/setup/finish'
  readonly schema = FinishSetupSchema
  override readonly answers = {
    ok: okAnswer({ user: SignedInUserSchema }, { user: { id: 1, username: 'admin', role: { id: 1, name: 'admin' } } }, 'The first administrator, signed in'),
    errors: [InvalidSetupToken, PlatformAlreadyInstalled, UsernameTaken, EmailTaken]
  }

  async handle (call: PublicCall<typeof FinishSetupSchema, HostContext>): Promise<Successful> {
    const { setupToken, ...account } = call.body
    const { setup } = call.ctx.identity
    if (!await setup.isToken(setupToken)) {
      // Setup finished (and forgot its token) while this request waited: too late, not wrong.
      if (await setup.isSetupDone()) throw new PlatformAlreadyInstalled()
      throw new InvalidSetupToken()
    }
    const user = await finishSetup(call.ctx, account, call.ip)
    return new Successful({ user: await signIn(call, user) })
  }
}

/** Shared by the endpoint and the `create-admin` command (local access: no token, no `ip`). */
export async function finishSetup (ctx: HostContext, account: NewAccount, ip?: string) {
  const { identity } = ctx
  const passwordHash = await identity.passwords.hash(account.password, ip)
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
