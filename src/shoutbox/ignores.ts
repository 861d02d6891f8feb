import { BadRequest, NoPermission, NotFound, type AddonContext, type Database, type MemberViewer, type SessionUser } from '../sdk/index.js'
import { IgnoreListFull } from './errors.js'
import { admitCounted } from './flood-control.js'
import { canRead, Rooms } from './rooms.js'
import { shoutsRepository } from './shouts-repository.js'
import { IGNORES_TABLE } from './tables.js'

/** How many accounts one member may ignore. */
export const MAX_IGNORED = 200
/** Changes of one member's ignore list a minute (ignoring and no longer ignoring alike). */
export const IGNORE_CHANGES_PER_MINUTE = 30

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
      return rows.length > 0 || await this.has(userId, ignoredId)
    },

    async has (userId: number, ignoredId: number): Promise<boolean> {
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
 * Counts one change of `user`'s ignore list, whatever its answer, before anything is looked
 * up: past IGNORE_CHANGES_PER_MINUTE, TOO_MANY_REQUESTS with the wait (on every process).
 */
export async function admitIgnoreChange (ctx: AddonContext, user: SessionUser): Promise<void> {
  await ctx.transaction(trx => admitCounted(user.id, 'ignores_recent', IGNORE_CHANGES_PER_MINUTE, trx))
}

/**
 * The account `targetId` if `viewer` could see it on the board: an active account with a
 * shout in a room `viewer` may read, or one they ignore already; undefined otherwise, so an
 * account that does not exist, a disabled one, and one that never wrote where the viewer
 * reads (a bot, staff who only use the panel) are all the same answer. The board is asked
 * first: an id nobody wrote under costs what an unknown one does.
 */
async function seenBy (ctx: AddonContext, viewer: MemberViewer, targetId: number): Promise<SessionUser | undefined> {
  const rooms = (await Rooms.of(ctx).all()).filter(room => canRead(room, viewer)).map(room => room.id)
  const seen = await shoutsRepository(ctx.db).wroteIn(targetId, rooms) || await ignoresRepository(ctx.db).has(viewer.user.id, targetId)
  return seen ? await ctx.users.findActive(targetId) : undefined
}

/**
 * `user` ignores account `targetId`: not themselves (400); an account they could see on the
 * board (404 otherwise, as for none: see `seenBy`); not a holder of MANAGE_SHOUTBOX (403: a
 * moderator's word is never hidden; asked only of an account the caller has seen, whose
 * shouts' author lookup says `moderator` anyway); at most MAX_IGNORED (409).
 */
export async function ignore (ctx: AddonContext, viewer: MemberViewer, targetId: number): Promise<void> {
  const { user } = viewer
  if (targetId === user.id) throw new BadRequest({ reason: 'one cannot ignore oneself' })
  const target = await seenBy(ctx, viewer, targetId)
  if (target === undefined) throw new NotFound()
  if (ctx.permissions.has(target, 'MANAGE_SHOUTBOX')) throw new NoPermission()
  if (!await ignoresRepository(ctx.db).add(user.id, targetId)) throw new IgnoreListFull(MAX_IGNORED)
}
