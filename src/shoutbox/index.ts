import { defineAddon } from '../sdk/index.js'
import { RecentChanges } from './changes/list.js'
import { Reactions } from './reactions.js'
import { Retention } from './retention.js'
import { WatchedWords } from './word-list.js'
import { canRead, GENERAL_ROOM_ID, Rooms, roomNodes } from './rooms.js'
import { ShoutboxSettings } from './settings.js'
import { StreamHub } from './stream-hub.js'
import { memberData } from './member-export.js'
import { eraseMember } from './user-data.js'
import { SHOUTBOX_DATA_MAP } from './data-map.js'
import { GuestRetention } from './guests/guest-erasure.js'
import { Presence } from './presence/presence.js'
import { shoutPictures } from './pictures/access.js'

/**
 * The Shoutbox addon. Its endpoints (endpoints/) and migrations (migrations/) are found
 * by the host; nothing here registers them. Each room adds a read and a post node of its
 * own, which roles may hold. Starting it subscribes the live stream and
 * the record of deletes to change notices and starts retention's hourly runs; stopping
 * it ends the live stream and waits for a run in progress.
 */
export default defineAddon({
  start: ctx => {
    RecentChanges.of(ctx).start()
    StreamHub.of(ctx).start()
    Retention.of(ctx).start()
    GuestRetention.of(ctx).start()
    Presence.of(ctx).start()
  },
  stop: async ctx => {
    await Presence.of(ctx).stop()
    StreamHub.of(ctx).stop()
    GuestRetention.of(ctx).stop()
    Reactions.of(ctx).stop()
    await Retention.of(ctx).stop()
  },
  // Each room's own read and post nodes, for the Roles page: of the rooms the reader may
  // read (a hidden room's nodes would name it).
  permissionNodes: async (ctx, locale, viewer) => (await Rooms.of(ctx).all()).filter(room => room.members === undefined && canRead(room, viewer)).flatMap(room => {
    const nodes = roomNodes(room.slug)
    const values = { name: room.name, slug: room.slug }
    const post = { node: nodes.post, title: ctx.i18n.t(locale, 'permissions.ROOM_POST.title', values), description: ctx.i18n.t(locale, 'permissions.ROOM_POST.description', values) }
    // The default room is read by everyone, always: a read node of its own would mean nothing.
    if (room.id === GENERAL_ROOM_ID) return [post]
    return [{ node: nodes.read, title: ctx.i18n.t(locale, 'permissions.ROOM_READ.title', values), description: ctx.i18n.t(locale, 'permissions.ROOM_READ.description', values) }, post]
  }),
  // The feed tells a panel user of a shout or a room they may not read only that
  // something happened there (the `hidden` sentences), never what was said or its name.
  // A sign-up's username may not hold a watched word that blocks.
  // Every column of the board's tables, and what export, erasure, an edit and a delete do to each copy of a person's text.
  dataMap: SHOUTBOX_DATA_MAP,
  // A member's data export: everything the board stores about them.
  exportUser: (ctx, userId, reader) => memberData(ctx, userId, reader),
  // A deleted account: what the board keeps of it goes, its shouts as the site's erasure says.
  eraseUser: (ctx, userId, mode, trx) => eraseMember(ctx, userId, mode, trx),
  // The /privacy page's rows of the board's: shouts (as long as keepDays says), their pictures, conversation, mutes.
  privacyNotes: async (ctx, locale) => {
    const { keepDays } = await ShoutboxSettings.of(ctx).current()
    const note = (key: string) => ({
      what: ctx.i18n.t(locale, `privacy.${key}.what`),
      why: ctx.i18n.t(locale, `privacy.${key}.why`),
      kept: ctx.i18n.t(locale, `privacy.${key}.kept`, { days: keepDays ?? 0 })
    })
    return [note(keepDays === null ? 'shouts' : 'shoutsDays'), note('pictures'), note('conversation'), note('mutes')]
  },
  // Who may see a shout's picture (the readers of its room while it is on the board), and which pictures shouts still show.
  pictures: ctx => shoutPictures(ctx),
  webhookEvents: ['shout.created', 'shout.edited', 'shout.deleted', 'report.created', 'member.muted'],
  allowsUsername: async (ctx, username) => (await WatchedWords.of(ctx).filter()).check(username).action !== 'block',
  // A notification about a room's shout (a mention, a report's outcome) is shown while its
  // reader may read that room — checked on every read: a room whose `read` was tightened
  // hides what was said there, and a token reads only what it may.
  notificationFilter: async (ctx, viewer) => {
    const readable = await Rooms.of(ctx).readableSlugs(viewer)
    return {
      sql: ctx.db.raw("((n.data->>'room') is null or (n.data->>'room') = any(?::text[]))", [[...readable]]),
      shows: ({ data }) => data.room === undefined || (typeof data.room === 'string' && readable.has(data.room))
    }
  },
  activityReader: async (ctx, viewer) => {
    const readable = await Rooms.of(ctx).readableSlugs(viewer)
    return ({ details }) => typeof details.room === 'string' && !readable.has(details.room) ? { variant: 'hidden' } : { ...details }
  }
})
