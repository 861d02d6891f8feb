import {
  BadRequest, Conflict, IdParamsSchema, LoggedInApi, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer,
  type SessionUser, type SignedInCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { MAX_TOKENS_PER_USER } from '../identity/api-tokens.js'
import { assertHoldsAll } from '../identity/granting.js'
import { PermissionNodeSchema } from '../schemas.js'

const TokenSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  permissions: Type.Array(Type.String(), { description: 'what it was given; it acts with those its user still holds' }),
  createdAt: Type.Integer(),
  expiresAt: Type.Integer(),
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'to the minute; null until first used' })
})

const TOKEN_EXAMPLE = {
  id: 4, name: 'deploy announcements', permissions: ['addon.shoutbox.post'], createdAt: 1795000000000, expiresAt: 1802776000000, lastUsedAt: null
}
const SECRET_EXAMPLE = 'sbx_nikNMvChyGfuD6BidTAVbGnxZ66D7kBry-Ck8N_6iiw'

const NewTokenSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'what it is for, shown in the list' }),
  permissions: Type.Array(PermissionNodeSchema, { minItems: 1, maxItems: 50, description: 'a subset of the permissions the token\'s user holds' }),
  expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 90, description: '1–365 days; 90 when not given' }))
}, { additionalProperties: false })

const CREATED = okAnswer(
  { token: TokenSchema, secret: Type.String({ description: 'shown this once; only its SHA-256 is kept' }) },
  { token: TOKEN_EXAMPLE, secret: SECRET_EXAMPLE },
  'The new token and its secret (send it as `Authorization: Bearer <secret>`)'
)
const LISTED = okAnswer({ tokens: Type.Array(TokenSchema) }, { tokens: [{ ...TOKEN_EXAMPLE, lastUsedAt: 1795000060000 }] }, 'The tokens, the newest first')

/**
 * Makes a token for `owner`: its permissions must be held by the one who asks (the owner
 * themselves, or an administrator making a bot's), and the owner may hold no more than
 * MAX_TOKENS_PER_USER. Logged CREATED_TOKEN.
 */
async function createToken (call: SignedInCall<{ body: typeof NewTokenSchema }, HostContext>, owner: SessionUser): Promise<Successful> {
  const { ctx, user: caller, body } = call
  assertHoldsAll(caller, body.permissions)
  const created = await ctx.transaction(async trx => {
    await ctx.identity.users.lock(owner.id, trx)
    if (await ctx.identity.tokens.countOf(owner.id, trx) >= MAX_TOKENS_PER_USER) {
      throw new Conflict({ reason: `an account holds at most ${MAX_TOKENS_PER_USER} tokens; revoke one first` })
    }
    const made = await ctx.identity.tokens.create(owner.id, { name: body.name, permissions: body.permissions, expiresInDays: body.expiresInDays ?? 90 }, trx)
    await ctx.activityLog.write({ type: 'CREATED_TOKEN', user: caller, details: { token: made.token.name, user: owner.username, targetUserId: owner.id } }, trx)
    return made
  })
  return new Successful(created)
}

async function revokeToken (call: SignedInCall<object, HostContext>, owner: { id: number, username: string }, tokenId: number): Promise<Successful> {
  const { ctx, user: caller } = call
  await ctx.transaction(async trx => {
    const revoked = await ctx.identity.tokens.revoke(owner.id, tokenId, trx)
    if (revoked === undefined) throw new NotFound()
    await ctx.activityLog.write({ type: 'REVOKED_TOKEN', user: caller, details: { token: revoked.name, user: owner.username, targetUserId: owner.id } }, trx)
  })
  return new Successful()
}

const CreateOwnSchema = { body: NewTokenSchema }

/** POST /api/users/me/tokens — a token of the caller's own, for a script or a bot they run. */
export class CreateOwnToken extends LoggedInApi<typeof CreateOwnSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/users/me/tokens'
  readonly schema = CreateOwnSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: CREATED, errors: [NoPermission, Conflict] }

  async handle (call: SignedInCall<typeof CreateOwnSchema, HostContext>): Promise<Successful> {
    return createToken(call, call.user)
  }
}

/** GET /api/users/me/tokens — the caller's tokens, with their last use; never a secret. */
export class ListOwnTokens extends LoggedInApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/users/me/tokens'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = { ok: LISTED }

  async handle ({ ctx, user }: SignedInCall<object, HostContext>): Promise<Successful> {
    return new Successful({ tokens: await ctx.identity.tokens.listOf(user.id) })
  }
}

const RevokeOwnSchema = { params: IdParamsSchema }

/** DELETE /api/users/me/tokens/:id — revoked at once, on every process. */
export class RevokeOwnToken extends LoggedInApi<typeof RevokeOwnSchema, HostContext> {
  readonly method = 'DELETE'
  readonly path = '/api/users/me/tokens/:id'
  readonly schema = RevokeOwnSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({}, {}), errors: [NotFound] }

  async handle (call: SignedInCall<typeof RevokeOwnSchema, HostContext>): Promise<Successful> {
    return revokeToken(call, call.user, Number(call.params.id))
  }
}

/** The bot account `id`, if the caller manages users and holds everything its role holds. */
async function managedBot (call: Pick<SignedInCall<object, HostContext>, 'requirePermission' | 'ctx' | 'user'> & { params: { id: string } }): Promise<SessionUser> {
  call.requirePermission('MANAGE_USERS')
  const { identity } = call.ctx
  const bot = await identity.users.sessionUser(Number(call.params.id))
  if (bot === undefined) throw new NotFound()
  assertHoldsAll(call.user, bot.permissions)
  if (bot.bot !== true) throw new BadRequest({ reason: 'only a bot account is given tokens here; a person makes their own' })
  return bot
}

const BotTokenSchema = { params: IdParamsSchema, body: NewTokenSchema }

/** POST /api/panel/users/:id/tokens — a token for the bot account `id` (a bot has no password: tokens are how it acts). */
export class CreateBotToken extends PanelApi<typeof BotTokenSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/users/:id/tokens'
  readonly schema = BotTokenSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: CREATED, errors: [NoPermission, NotFound, Conflict] }

  async handle (call: SignedInCall<typeof BotTokenSchema, HostContext>): Promise<Successful> {
    return createToken(call, await managedBot(call))
  }
}

const BotSchema = { params: IdParamsSchema }

/** GET /api/panel/users/:id/tokens — a bot account's tokens. */
export class ListBotTokens extends PanelApi<typeof BotSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/users/:id/tokens'
  readonly schema = BotSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: LISTED, errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof BotSchema, HostContext>): Promise<Successful> {
    const bot = await managedBot(call)
    return new Successful({ tokens: await call.ctx.identity.tokens.listOf(bot.id) })
  }
}

const RevokeBotSchema = { params: Type.Object({ id: IdParamsSchema.properties.id, tokenId: IdParamsSchema.properties.id }) }

/** DELETE /api/panel/users/:id/tokens/:tokenId — revokes a bot account's token. */
export class RevokeBotToken extends PanelApi<typeof RevokeBotSchema, HostContext> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/users/:id/tokens/:tokenId'
  readonly schema = RevokeBotSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof RevokeBotSchema, HostContext>): Promise<Successful> {
    const bot = await managedBot(call)
    return revokeToken(call, bot, Number(call.params.tokenId))
  }
}
