import { PanelApi, Successful, Type, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { EmailSchema, PasswordSchema, UsernameSchema } from '../schemas.js'

export class ListUsers extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/users'
  readonly schema = {}

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    return new Successful({ users: await call.ctx.identity.users.list() })
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

export class CreateUser extends PanelApi<typeof CreateUserSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/users'
  readonly schema = CreateUserSchema

  async handle (call: SignedInCall<typeof CreateUserSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    const { ctx } = call
    const { password, ...account } = call.body
    const passwordHash = await ctx.identity.passwords.hash(password)
    const user = await ctx.transaction(async trx => {
      const created = await ctx.identity.users.create({ ...account, passwordHash }, trx)
      await ctx.activityLog.write({ type: 'CREATED_USER', user: call.user, details: { user: created.username } }, trx)
      return created
    })
    return new Successful({ user })
  }
}
