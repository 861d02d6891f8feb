import { Api, Successful, TooManyRequests, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

const MAX_NAMES = 50

const KnownUsersSchema = {
  querystring: Type.Object({
    /** Comma-separated usernames, as written after `@` in a shout. */
    names: Type.String({ maxLength: MAX_NAMES * 33, pattern: '^[A-Za-z0-9_,-]*$' })
  })
}

/**
 * GET /api/users/known?names=a,b — public: which of these usernames are active accounts
 * (as they are spelled), so a page highlights `@name` only for real ones. One indexed
 * query for up to 50 names; the widget asks once per name it has not seen. Authors'
 * names are public on the board anyway; but not every account writes there (staff who
 * only sign in to the panel), so the names looked up are counted per client address:
 * past the quota, TOO_MANY_REQUESTS, and a stranger tries names slowly. A disabled
 * account is not one to mention.
 */
export class KnownUsers extends Api<typeof KnownUsersSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/users/known'
  readonly schema = KnownUsersSchema
  override readonly answers = {
    ok: okAnswer({ usernames: Type.Array(Type.String(), { description: 'those that are active accounts, as they are spelled' }) }, { usernames: ['ada'] }),
    errors: [TooManyRequests]
  }

  async handle ({ ctx, query, ip }: PublicCall<typeof KnownUsersSchema, HostContext>): Promise<Successful> {
    const names = [...new Set(query.names.split(',').filter(name => name.length >= 3 && name.length <= 32))].slice(0, MAX_NAMES)
    await ctx.identity.knownUsersQuota.take(ip, Math.max(1, names.length))
    return new Successful({ usernames: await ctx.identity.users.existing(names) })
  }
}
