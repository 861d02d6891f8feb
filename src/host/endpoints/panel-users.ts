import {
  BadRequest, DELETED_USER_NAME, IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer,
  type ActivityLogEntryInput, type Database, type SessionUser, type SignedInCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { EmailTaken, LastAdmin, UnknownRole, UsernameTaken } from '../errors.js'
import { eraseAccount } from '../identity/erasure.js'
import { assertHoldsAll } from '../identity/granting.js'
import type { Role } from '../identity/roles.js'
import { clearSessionCookie } from '../identity/sessions.js'
import { withoutHash, type User, type UserChange, type UserWithHash } from '../identity/users.js'
import type { Identity } from '../plugins/identity.js'
import { EmailSchema, PasswordSchema, USER_EXAMPLE, UserSchema, UsernameSchema } from '../schemas.js'

const RoleIdSchema = Type.Integer({ minimum: 1, maximum: 2_147_483_647 })

export class ListUsers extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/users'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ users: Type.Array(UserSchema) }, {
      users: [{ id: 1, username: 'admin', email: 'admin@example.org', roleId: 1, disabled: false, bot: false, createdAt: 1794990000000 }, USER_EXAMPLE]
    }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    return new Successful({ users: await call.ctx.identity.users.list() })
  }
}

const CreateUserSchema = {
  body: Type.Object({
    username: UsernameSchema,
    email: EmailSchema,
    password: Type.Optional(PasswordSchema),
    roleId: RoleIdSchema,
    bot: Type.Optional(Type.Boolean({ description: 'a bot account: no password (none may be sent); it acts through the tokens of POST /api/panel/users/:id/tokens' }))
  })
}

/** A bot's password hash: no hash string of any scheme, so no password ever matches it (and a sign-in never finds a bot). */
const NO_PASSWORD = 'bot:no-password'

/**
 * A manager gives a new user only a role whose permissions the manager holds. A person
 * needs a password; a bot account (`bot: true`) must have none.
 */
export class CreateUser extends PanelApi<typeof CreateUserSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/users'
  override readonly closedToTokens = true
  readonly schema = CreateUserSchema
  // 503 SERVICE_UNAVAILABLE (with Retry-After) also when password hashing is full.
  override readonly answers = { ok: okAnswer({ user: UserSchema }, { user: USER_EXAMPLE }), errors: [NoPermission, UnknownRole, UsernameTaken, EmailTaken] }

  async handle (call: SignedInCall<typeof CreateUserSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    const { ctx } = call
    const { password, bot, ...account } = call.body
    if ((bot === true) === (password !== undefined)) {
      throw new BadRequest({ reason: bot === true ? 'a bot account has no password' : 'a password is required' })
    }
    await givableRole(ctx.identity, call.user, account.roleId, ctx.db)
    const passwordHash = password === undefined ? NO_PASSWORD : await ctx.identity.passwords.hash(password, call.ip)
    const user = await ctx.transaction(async trx => {
      const created = await ctx.identity.users.create({ ...account, passwordHash, bot: bot === true }, trx)
      await ctx.activityLog.write({ type: 'CREATED_USER', user: call.user, details: { user: created.username } }, trx)
      return created
    })
    return new Successful({ user })
  }
}

const UpdateUserSchema = {
  params: IdParamsSchema,
  body: Type.Object({
    roleId: Type.Optional(RoleIdSchema),
    disabled: Type.Optional(Type.Boolean()),
    password: Type.Optional(PasswordSchema)
  }, { minProperties: 1 })
}

/**
 * Another role, disabled or enabled, a new password. Any of these except enabling ends
 * the user's sessions on every process. Checked in this order: the user exists (404),
 * the caller holds everything the user's role holds and the new role holds (403), the
 * platform keeps an active administrator (409 LAST_ADMIN), the caller is not changing
 * their own role or setting their own password here (403; `POST /api/auth/password`
 * asks for the current one).
 */
export class UpdateUser extends PanelApi<typeof UpdateUserSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/panel/users/:id'
  override readonly closedToTokens = true
  readonly schema = UpdateUserSchema
  override readonly answers = {
    ok: okAnswer({ user: UserSchema }, { user: { ...USER_EXAMPLE, disabled: true } }),
    errors: [NoPermission, NotFound, UnknownRole, LastAdmin]
  }

  async handle (call: SignedInCall<typeof UpdateUserSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    const { ctx, user: caller } = call
    const { identity } = ctx
    const id = Number(call.params.id)
    const { roleId, disabled, password } = call.body
    // A password costs a slow hash: refuse what can be refused before paying for it.
    if (password !== undefined) await managedUser(identity, caller, id, ctx.db)
    const passwordHash = password === undefined ? undefined : await identity.passwords.hash(password, call.ip)

    const user = await ctx.transaction(async trx => {
      await identity.users.lockAccountChanges(trx)
      const { target, role: currentRole } = await managedUser(identity, caller, id, trx)
      const newRole = roleId === undefined || roleId === target.roleId ? undefined : await givableRole(identity, caller, roleId, trx)
      const change: UserChange = {
        ...(newRole === undefined ? {} : { roleId: newRole.id }),
        ...(disabled === undefined || disabled === target.disabled ? {} : { disabled }),
        ...(passwordHash === undefined ? {} : { passwordHash })
      }
      if (change.roleId !== undefined || change.disabled === true) await identity.users.refuseLastAdmin(target, trx)
      if (target.id === caller.id && (change.roleId !== undefined || change.passwordHash !== undefined)) throw new NoPermission()
      if (Object.keys(change).length === 0) return withoutHash(target)

      const updated = await identity.users.update(id, change, trx)
      if (updated === undefined) throw new NotFound()
      if (change.roleId !== undefined || change.disabled === true || change.passwordHash !== undefined) {
        await identity.sessions.endSessionsOf(id, undefined, trx)
      }
      await ctx.activityLog.write(changeEntries(caller, target, change, currentRole, newRole), trx)
      return updated
    })
    if (user.id === caller.id && user.disabled) clearSessionCookie(call.reply, call.ctx.identity.sessionCookie)
    return new Successful({ user })
  }
}

const DeleteUserSchema = { params: IdParamsSchema }

/** The account goes as the site's `erasure` says (see `eraseAccount`); activity entries keep the username they were written with. */
export class DeleteUser extends PanelApi<typeof DeleteUserSchema, HostContext> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/users/:id'
  override readonly closedToTokens = true
  readonly schema = DeleteUserSchema
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound, LastAdmin] }

  async handle (call: SignedInCall<typeof DeleteUserSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_USERS')
    const { ctx, user: caller } = call
    const { identity } = ctx
    const id = Number(call.params.id)
    await ctx.transaction(async trx => {
      await identity.users.lockAccountChanges(trx)
      const { target } = await managedUser(identity, caller, id, trx)
      await identity.users.refuseLastAdmin(target, trx)
      await eraseAccount(ctx, id, target.username, trx)
      await ctx.activityLog.write({ type: 'DELETED_USER', user: caller, details: { user: DELETED_USER_NAME, targetUserId: target.id, variant: 'erased' } }, trx)
    })
    if (id === caller.id) clearSessionCookie(call.reply, call.ctx.identity.sessionCookie)
    return new Successful()
  }
}

/** The user `id` and their role, if the caller holds everything that role holds (only admins manage admins). */
async function managedUser (identity: Identity, caller: SessionUser, id: number, trx: Database): Promise<{ target: UserWithHash, role: Role | undefined }> {
  const target = await identity.users.find(id, trx)
  if (target === undefined) throw new NotFound()
  const role = await identity.roles.find(target.roleId, trx)
  assertHoldsAll(caller, role?.permissions ?? [])
  return { target, role }
}

/** The role `roleId`, if it exists and the caller holds everything it holds. */
async function givableRole (identity: Identity, caller: SessionUser, roleId: number, trx: Database): Promise<Role> {
  const role = await identity.roles.find(roleId, trx)
  if (role === undefined) throw new UnknownRole()
  assertHoldsAll(caller, role.permissions)
  return role
}

function changeEntries (caller: SessionUser, target: User, change: UserChange, from: Role | undefined, to: Role | undefined): ActivityLogEntryInput[] {
  const about = { user: target.username, targetUserId: target.id }
  const entries: ActivityLogEntryInput[] = []
  if (to !== undefined) entries.push({ type: 'CHANGED_USER_ROLE', user: caller, details: { ...about, role: to.name, previousRole: from?.name ?? '' } })
  if (change.disabled !== undefined) entries.push({ type: change.disabled ? 'DISABLED_USER' : 'ENABLED_USER', user: caller, details: about })
  if (change.passwordHash !== undefined) entries.push({ type: 'SET_USER_PASSWORD', user: caller, details: about })
  return entries
}
