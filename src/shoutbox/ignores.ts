import { BadRequest, NoPermission, NotFound, type AddonContext, type Database, type SessionUser } from '../sdk/index.js'
import { IgnoreListFull } from './errors.js'
import { IGNORES_TABLE } from './tables.js'

/** How many accounts one member may ignore. */
export const MAX_IGNORED = 200

/** Each member's ignore list: account ids. */
export function ignoresRepository (db: Database) {
  return {
    /** Whom `userId` ignores, oldest first. */
    async of (userId: number): Promise<number[]> {
      const rows = await db(IGNORES_TABLE).where({ user_id: userId }).orderBy('created_at').orderBy('ignored_id').select<Array<{ ignored_id: number }>>('ignored_id')
      return rows.map(row => row.ignored_id)
    },

    /** Of `userIds`, those who ignore `authorId`. */
    async ignoring (userIds: readonly number[], authorId: number): Promise<Set<number>> {
      if (userIds.length === 0) return new Set()
      const rows = await db(IGNORES_TABLE).whereIn('user_id', [...userIds]).where({ ignored_id: authorId }).select<Array<{ user_id: number }>>('user_id')
      return new Set(rows.map(row => row.user_id))
    },

    /** Adds `ignoredId` to `userId`'s list, unless it holds MAX_IGNORED already (false then); true when it is on it now. */
    async add (userId: number, ignoredId: number): Promise<boolean> {
      const { rows } = await db.raw<{ rows: unknown[] }>(`
        insert into ?? (user_id, ignored_id, created_at)
        select ?, ?, ? where (select count(*) from ?? where user_id = ?) < ?
        on conflict (user_id, ignored_id) do nothing
        returning 1`, [IGNORES_TABLE, userId, ignoredId, Date.now(), IGNORES_TABLE, userId, MAX_IGNORED])
      if (rows.length > 0) return true
      return (await db(IGNORES_TABLE).where({ user_id: userId, ignored_id: ignoredId }).first()) !== undefined
    },

    async remove (userId: number, ignoredId: number): Promise<void> {
      await db(IGNORES_TABLE).where({ user_id: userId, ignored_id: ignoredId }).delete()
    }
  }
}

/** The accounts `viewer` ignores: whose shouts their answers leave out (none for a visitor). */
export async function ignoredBy (ctx: AddonContext, viewer: SessionUser | null): Promise<number[]> {
  return viewer === null ? [] : ignoresRepository(ctx.db).of(viewer.id)
}

/**
 * `user` ignores account `targetId`: not themselves (400), an account that exists (404), not
 * a holder of MANAGE_SHOUTBOX (403: a moderator's word is never hidden), at most MAX_IGNORED (409).
 */
export async function ignore (ctx: AddonContext, user: SessionUser, targetId: number): Promise<void> {
  if (targetId === user.id) throw new BadRequest({ reason: 'one cannot ignore oneself' })
  const target = await ctx.users.find(targetId)
  if (target === undefined) throw new NotFound()
  if (ctx.permissions.has(target, 'MANAGE_SHOUTBOX')) throw new NoPermission()
  if (!await ignoresRepository(ctx.db).add(user.id, targetId)) throw new IgnoreListFull(MAX_IGNORED)
}
