import {
  Api, PlatformAlreadyInstalled, SetupApi, SetupFinished, Successful, type PublicCall
} from '../../sdk/index.js'
import type { AvailableBeforeSetup } from '../http/endpoint-route.js'
import { ADMIN_ROLE_ID } from '../identity/roles.js'
import { signIn } from '../identity/sign-in.js'
import type { Platform } from '../platform.js'
import { NewAccountSchema } from '../schemas.js'

export class SetupStatus extends Api implements AvailableBeforeSetup {
  readonly method = 'GET'
  readonly path = '/api/setup/status'
  readonly schema = {}
  readonly availableBeforeSetup = true

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (): Promise<Successful> {
    return new Successful({ setupDone: await this.platform.settings.isSetupDone() })
  }
}

const FinishSetupSchema = { body: NewAccountSchema }

/** Creates the first administrator and finishes setup; the admin is signed in at once. */
export class FinishSetup extends SetupApi<typeof FinishSetupSchema> {
  readonly method = 'POST'
  readonly path = '/api/setup/finish'
  readonly schema = FinishSetupSchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: PublicCall<typeof FinishSetupSchema>): Promise<Successful> {
    const user = await finishSetup(this.platform, call.body)
    return new Successful({ user: await signIn(this.platform, call, user) })
  }
}

/** Shared by the endpoint and the `create-admin` command. */
export async function finishSetup (platform: Platform, account: { username: string, email: string, password: string }) {
  const passwordHash = await platform.hasher.hash(account.password)
  const user = await platform.db.transaction(async trx => {
    if (!await platform.settings.finishSetup(trx)) throw new PlatformAlreadyInstalled()
    const admin = await platform.users.create({ ...account, passwordHash, roleId: ADMIN_ROLE_ID }, trx)
    await platform.activity.write('host', { type: 'SETUP_FINISHED', user: admin }, trx)
    return admin
  })
  await platform.initialiseAddons()
  platform.events.emit(SetupFinished.name, { admin: { id: user.id, username: user.username } })
  return user
}
