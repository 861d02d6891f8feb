import { BadRequest, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, Type, okAnswer, type AddonContext, type SignedInCall } from '../../sdk/index.js'
import { IgnoreListFull } from '../errors.js'
import { admitIgnoreChange, ignore, ignoresRepository, MAX_IGNORED } from '../ignores.js'
import { AUTHOR_ANSWER, authorAccount } from '../authors.js'
import { ShoutIdParamsSchema } from '../schemas.js'

const IgnoredSchema = Type.Array(Type.Object({ userId: Type.Integer(), username: Type.String() }, { additionalProperties: false }), { description: `oldest first; at most ${MAX_IGNORED}` })
const ANSWER = okAnswer({ ignored: IgnoredSchema }, { ignored: [{ userId: 7, username: 'spammy' }] }, 'The ignore list now')

const TargetSchema = { params: Type.Object({ userId: Type.String({ pattern: '^[0-9]{1,9}$' }) }) }

/** The list as answered: each ignored account with its name now (accounts deleted or disabled since are left out alike). */
async function listOf (ctx: AddonContext, userId: number): Promise<Array<{ userId: number, username: string }>> {
  const ids = await ignoresRepository(ctx.db).of(userId)
  const names = await ctx.users.namesOf(ids, { active: true })
  return ids.flatMap(id => names.has(id) ? [{ userId: id, username: names.get(id)! }] : [])
}

/**
 * GET /api/users/me/ignored — whom the caller ignores. Their shouts are left out of the
 * caller's answers (a room's shouts, the archive, search, the latest; `?ignored=show`
 * keeps them), the widget hides them as they arrive, and their mentions of the caller
 * notify nobody.
 */
export class ListIgnored extends LoggedInApi {
  readonly method = 'GET'
  readonly path = '/api/users/me/ignored'
  readonly schema = {}
  override readonly answers = { ok: ANSWER }

  async handle ({ ctx, user }: SignedInCall): Promise<Successful> {
    return new Successful({ ignored: await listOf(ctx, user.id) })
  }
}

/**
 * PUT /api/users/me/ignored/:userId — ignores an account the caller could see on the board
 * (an active account with a shout in a room they may read): 404 for any other id, the same
 * for none, a disabled account, a bot or staff member who never wrote there; 400 for
 * oneself; 403 for a holder of MANAGE_SHOUTBOX (a moderator's word is never hidden); 409
 * IGNORE_LIST_FULL past 200. Ignoring twice is once. With DELETE, at most
 * IGNORE_CHANGES_PER_MINUTE a minute per member, whatever the answer → 429.
 */
export class Ignore extends LoggedInApi<typeof TargetSchema> {
  readonly method = 'PUT'
  readonly path = '/api/users/me/ignored/:userId'
  readonly schema = TargetSchema
  override readonly answers = { ok: ANSWER, errors: [BadRequest, NotFound, NoPermission, IgnoreListFull, TooManyRequests] }

  async handle ({ ctx, user, viewer, params }: SignedInCall<typeof TargetSchema>): Promise<Successful> {
    await admitIgnoreChange(ctx, user)
    await ignore(ctx, viewer, Number(params.userId))
    return new Successful({ ignored: await listOf(ctx, user.id) })
  }
}

/**
 * DELETE /api/users/me/ignored/:userId — stops ignoring an account (one not ignored: nothing
 * changes, and the answer is the list as it is). Counted with PUT: IGNORE_CHANGES_PER_MINUTE.
 */
export class Unignore extends LoggedInApi<typeof TargetSchema> {
  readonly method = 'DELETE'
  readonly path = '/api/users/me/ignored/:userId'
  readonly schema = TargetSchema
  override readonly answers = { ok: ANSWER, errors: [TooManyRequests] }

  async handle ({ ctx, user, params }: SignedInCall<typeof TargetSchema>): Promise<Successful> {
    await admitIgnoreChange(ctx, user)
    await ignoresRepository(ctx.db).remove(user.id, Number(params.userId))
    return new Successful({ ignored: await listOf(ctx, user.id) })
  }
}

/**
 * GET /api/shoutbox/shouts/:id/author — a signed-in reader asks whose account wrote a shout
 * (the list names authors, not accounts): `{userId, username, moderator}`, to ignore them.
 * 404 for a shout of a room the caller may not read, as for none, and for shouts stored
 * before authors were kept, and for an author whose account is gone or disabled (alike).
 */
export class ShoutAuthorAccount extends LoggedInApi<typeof ShoutIdParamsSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/shouts/:id/author'
  readonly schema = ShoutIdParamsSchema
  override readonly answers = { ok: AUTHOR_ANSWER, errors: [NotFound] }

  async handle ({ ctx, params, viewer }: SignedInCall<typeof ShoutIdParamsSchema>): Promise<Successful> {
    return new Successful({ author: await authorAccount(ctx, Number(params.id), viewer) })
  }
}
