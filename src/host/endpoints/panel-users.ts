import { PanelApi, Successful, Type, type SignedInCall } from '../../sdk/index.js'
import type { Platform } from '../platform.js'
import { EmailSchema, PasswordSchema, UsernameSchema } from '../schemas.js'

export class ListUsers extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/users'
  readonly schema = {}

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    return new Successful({ users: await this.platform.users.list() })
  }
}

const CreateUserSchema = {
  body: Type.Object({
    username: UsernameSchema,
    email: EmailSchema,
    password: PasswordSchema,
    roleId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 })
  })
}

export class CreateUser extends PanelApi<typeof CreateUserSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/users'
  readonly schema = CreateUserSchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall<typeof CreateUserSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    const { password, ...account } = call.body
    const passwordHash = await this.platform.hasher.hash(password)
    const user = await this.platform.db.transaction(async trx => {
      const created = await this.platform.users.create({ ...account, passwordHash }, trx)
      await this.platform.activity.write('host', { type: 'CREATED_USER', user: call.user, details: { user: created.username } }, trx)
      return created
    })
    return new Successful({ user })
  }
}
