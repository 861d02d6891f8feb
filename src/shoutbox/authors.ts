import { NotFound, Type, okAnswer, type AddonContext, type Viewer } from '../sdk/index.js'
import { isConversation, Rooms } from './rooms.js'
import { shoutsRepository } from './shouts-repository.js'

/**
 * The account behind a shout, for a page about to act on its author (mute them, ignore
 * them): the list names authors, not accounts. `moderator`: they hold MANAGE_SHOUTBOX
 * (neither muted nor ignored).
 */
export const AUTHOR_ANSWER = okAnswer({
  author: Type.Object({
    userId: Type.Integer(), username: Type.String(), moderator: Type.Boolean({ description: 'holds MANAGE_SHOUTBOX: cannot be muted or ignored' })
  }, { additionalProperties: false })
}, { author: { userId: 2, username: 'ayse', moderator: false } }, "The shout's author's account")

/**
 * The account that wrote shout `id`; NOT_FOUND when the shout is gone, has no account
 * (stored before authors were kept), or — `reader` given, a member asking — is in a room
 * they may not read, or its author's account is disabled (as for one deleted: a member is
 * not told which). Staff (no `reader`) see disabled accounts too.
 */
export async function authorAccount (ctx: AddonContext, id: number, reader?: Viewer): Promise<{ userId: number, username: string, moderator: boolean }> {
  const found = await shoutsRepository(ctx.db).findWithAuthor(id)
  // A direct message is its two members' alone: staff ask after it as after none.
  if (found === undefined || found.authorId === null || isConversation(found.room)) throw new NotFound()
  if (reader !== undefined) await Rooms.of(ctx).readableBySlug(found.room, reader)
  const author = reader === undefined ? await ctx.users.find(found.authorId) : await ctx.users.findActive(found.authorId)
  if (author === undefined) throw new NotFound()
  return { userId: author.id, username: author.username, moderator: ctx.permissions.has(author, 'MANAGE_SHOUTBOX') }
}
