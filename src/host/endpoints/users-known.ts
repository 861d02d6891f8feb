import { Api, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

const MAX_NAMES = 50

const KnownUsersSchema = {
  querystring: Type.Object({
    /** Comma-separated usernames, as written after `@` in a shout. */
    names: Type.String({ maxLength: MAX_NAMES * 33, pattern: '^[A-Za-z0-9_,-]*$' })
  })
}

/**
 * GET /api/users/known?names=a,b — public: which of these usernames exist (as they are
 * spelled), so a page highlights `@name` only for real accounts. One indexed query for
 * up to 50 names; the widget asks once per name it has not seen. Usernames are public
 * on the board anyway, so this reveals nothing a reader could not see.
 */
export class KnownUsers extends Api<typeof KnownUsersSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/users/known'
  readonly schema = KnownUsersSchema
  override readonly answers = {
    ok: okAnswer({ usernames: Type.Array(Type.String(), { description: 'those that exist, as they are spelled' }) }, { usernames: ['ada'] })
  }

  async handle ({ ctx, query }: PublicCall<typeof KnownUsersSchema, HostContext>): Promise<Successful> {
    const names = [...new Set(query.names.split(',').filter(name => name.length >= 3 && name.length <= 32))].slice(0, MAX_NAMES)
    return new Successful({ usernames: await ctx.identity.users.existing(names) })
  }
}
