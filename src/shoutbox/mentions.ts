import { Viewer, type Actor, type AddonContext } from '../sdk/index.js'
import { mentionedNames } from '../sdk/rich-text.js'
import { ignoresRepository } from './ignores.js'
import { perContext } from './per-context.js'
import { canRead, isConversation, Rooms } from './rooms.js'
import { excerptOf } from './excerpt.js'
import type { RoomShout } from './schemas.js'

/** How many of a shout's `@names` notify: the first this many different ones. */
export const MENTIONS_PER_SHOUT = 5

/** What a mention's notification is about: its shout (removed with it). */
export const mentionKey = (shoutId: number): string => `shout:${shoutId}`

/**
 * Mentions that notify: a shout naming `@username` of an active account that may read the
 * shout's room gives that user a notification of kind `mention` —
 * `{shoutId, room, by, excerpt}` — through the host's notifications (any addon's, read at
 * `/api/notifications`). The first MENTIONS_PER_SHOUT different names count; none for
 * oneself; none for a user who ignores the author; none for a user who may not read the
 * room (a mention in a staff room tells nobody else it exists). Written once the shout is
 * committed; a shout deleted later takes its notifications with it (`shout-changes.ts`,
 * retention).
 */
export class Mentions {
  static readonly of = perContext(ctx => new Mentions(ctx))

  /** The notifying under way: `settled` waits for it. */
  private readonly running = new Set<Promise<void>>()

  private constructor (private readonly ctx: AddonContext) {}

  /** Notifies those `shout` (just stored, by `author`) mentions; failures are logged, never the poster's. */
  afterPublish (shout: RoomShout, author: Actor): void {
    // A conversation of two tells its other member by its own notification (`direct`), and no one else.
    if (!shout.message.includes('@') || isConversation(shout.room)) return
    const work = this.notify(shout, author)
      .catch(error => this.ctx.log.warn({ err: error, shoutId: shout.id }, 'could not notify the mentioned'))
      .finally(() => this.running.delete(work))
    this.running.add(work)
  }

  /** Resolves once every shout published so far has notified whom it mentions (a test asks, rather than wait a while). */
  async settled (): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running)
  }

  private async notify (shout: RoomShout, author: Actor): Promise<void> {
    const { ctx } = this
    const names = [...new Map(mentionedNames(shout.message).map(name => [name.toLowerCase(), name])).keys()]
      .filter(name => name !== author.username.toLowerCase())
      .slice(0, MENTIONS_PER_SHOUT)
    if (names.length === 0) return
    const room = (await Rooms.of(ctx).all()).find(each => each.slug === shout.room)
    if (room === undefined) return
    const excerpt = excerptOf(shout.message)
    const named = await ctx.users.findByNames(names)
    const ignoring = await ignoresRepository(ctx.db).ignoring(named.map(user => user.id), author.id)
    for (const user of named) {
      if (user.id === author.id || !canRead(room, Viewer.ofAccount(user, id => ctx.users.find(id))) || ignoring.has(user.id)) continue
      await ctx.notifications.notify(user.id, { kind: 'mention', data: { shoutId: shout.id, room: room.slug, by: author.username, excerpt }, key: mentionKey(shout.id) })
    }
  }
}
