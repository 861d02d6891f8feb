import { NotFound, type AddonContext, type Database, type Transaction, type Viewer } from '../sdk/index.js'
import { CHANGE_KINDS } from './changes/kinds.js'
import { Kept } from './kept.js'
import { perContext } from './per-context.js'
import { ROOMS_TABLE } from './tables.js'

/** The default room: every shout from before rooms, and every endpoint that names no room. */
export const GENERAL_ROOM_ID = 1
export const GENERAL_ROOM_SLUG = 'general'
/** The default room as the repositories take a room. */
export const GENERAL_ROOM = { id: GENERAL_ROOM_ID, slug: GENERAL_ROOM_SLUG } as const

/** The node of the board's own posting permission (POST_SHOUTS): a room's `post` unless it names another. */
export const POST_NODE = 'addon.shoutbox.post'
/** MANAGE_SHOUTBOX's node: its holders read, post in and moderate every room. */
export const MANAGE_NODE = 'addon.shoutbox.manage.shoutbox'

/** The nodes the addon makes for a room, which roles may hold and the room may name as its `read` and `post`. */
export function roomNodes (slug: string): { read: string, post: string } {
  return { read: `addon.shoutbox.room.${slug}.read`, post: `addon.shoutbox.room.${slug}.post` }
}

/** Who may read a room: anyone, anyone signed in, or the holders of a permission node. */
export type ReadAccess = 'everyone' | 'signed-in' | (string & {})

export interface Room {
  readonly id: number
  readonly slug: string
  readonly name: string
  readonly description: string
  readonly read: ReadAccess
  /** A permission node. */
  readonly post: string
  readonly position: number
  readonly archived: boolean
  /** 0: none; more: at least this long between a member's shouts in this room (the board's `minSecondsBetweenShouts` holds besides). */
  readonly slowModeSeconds: number
  /** Guests (no account) may post here — only while everyone may read it (`guestsMayPost`). */
  readonly guestsPost: boolean
  /**
   * A conversation of two (direct messages): its members' ids, the only ones who read and
   * write it (null: a member erased). Absent for a room of the board.
   */
  readonly members?: readonly [number | null, number | null]
}

/** The slug a conversation of two is given: `~` and its id, a name no room made in the panel can take. */
export const conversationSlug = (id: number): string => `~${id}`

/** Whether `slug` names a conversation of two (direct messages), whose shouts reach no one but its members. */
export const isConversation = (slug: string): boolean => slug.startsWith('~')

export type RoomChanges = Partial<Omit<Room, 'id' | 'slug'>>
export type NewRoom = Pick<Room, 'slug' | 'name'> & RoomChanges

interface RoomRow {
  readonly id: number
  readonly slug: string
  readonly name: string
  readonly description: string
  readonly read_access: string
  readonly post_access: string
  readonly position: number
  readonly archived: boolean
  readonly slow_mode_seconds: number
  readonly guests_post: boolean
  readonly kind: 'room' | 'direct'
  readonly member_low: number | null
  readonly member_high: number | null
}

const fromRow = (row: RoomRow): Room => ({
  ...(row.kind === 'direct' ? { members: [row.member_low, row.member_high] as const } : {}),
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  read: row.read_access,
  post: row.post_access,
  position: row.position,
  archived: row.archived,
  slowModeSeconds: row.slow_mode_seconds,
  guestsPost: row.guests_post
})

const toRow = (changes: RoomChanges): Partial<RoomRow> => {
  const row: Record<string, unknown> = {}
  if (changes.name !== undefined) row.name = changes.name
  if (changes.description !== undefined) row.description = changes.description
  if (changes.read !== undefined) row.read_access = changes.read
  if (changes.post !== undefined) row.post_access = changes.post
  if (changes.position !== undefined) row.position = changes.position
  if (changes.archived !== undefined) row.archived = changes.archived
  if (changes.slowModeSeconds !== undefined) row.slow_mode_seconds = changes.slowModeSeconds
  if (changes.guestsPost !== undefined) row.guests_post = changes.guestsPost
  return row as Partial<RoomRow>
}

/** The rooms, as stored. A room is never deleted: archiving keeps its history. */
export function roomsRepository (db: Database) {
  return {
    /**
     * Every room, archived ones too: the default room first, then by position (then age);
     * with `conversations`, the conversations of two as well (after the rooms, by id) —
     * what the access policy reads; the panel's list of rooms never holds them.
     */
    async all (trx: Database = db, conversations = false): Promise<Room[]> {
      const rows = await trx(ROOMS_TABLE).orderByRaw("kind = 'room' desc, id = ? desc, position, id", [GENERAL_ROOM_ID])
        .modify(query => { if (!conversations) void query.where({ kind: 'room' }) })
        .select<RoomRow[]>('id', 'slug', 'name', 'description', 'read_access', 'post_access', 'position', 'archived', 'slow_mode_seconds', 'guests_post', 'kind', 'member_low', 'member_high')
      return rows.map(fromRow)
    },

    /** The room's row locked until `trx` ends; undefined when there is none (a conversation of two is no room here). */
    async lock (id: number, trx: Transaction): Promise<Room | undefined> {
      const row = await trx(ROOMS_TABLE).where({ id, kind: 'room' }).forUpdate().first<RoomRow | undefined>()
      return row === undefined ? undefined : fromRow(row)
    },

    /** The new room; `'taken'` when another has its slug. Placed last unless a position is given. */
    async create (room: NewRoom, trx: Transaction): Promise<Room | 'taken'> {
      // Asked first so that a refused slug uses up no id; the insert's own check decides a race.
      if (await trx(ROOMS_TABLE).where({ slug: room.slug }).first('id') !== undefined) return 'taken'
      const position = room.position ?? Number((await trx(ROOMS_TABLE).max<{ max: number | null }>('position as max').first())?.max ?? 0) + 1
      const [row] = await trx(ROOMS_TABLE).insert({ ...toRow({ ...room, position }), slug: room.slug, created_at: Date.now() })
        .onConflict('slug').ignore().returning<RoomRow[]>('*')
      return row === undefined ? 'taken' : fromRow(row)
    },

    async update (id: number, changes: RoomChanges, trx: Transaction): Promise<Room | undefined> {
      const row = toRow(changes)
      if (Object.keys(row).length === 0) return this.lock(id, trx)
      const [updated] = await trx(ROOMS_TABLE).where({ id, kind: 'room' }).update(row).returning<RoomRow[]>('*')
      return updated === undefined ? undefined : fromRow(updated)
    }
  }
}

/**
 * Whether `viewer` may read `room`: by the room's `read`; moderators (MANAGE_SHOUTBOX)
 * read every room, as they moderate every one. Archived rooms are read like the others.
 * A token's viewer holds only the token's nodes: a post-only token reads public rooms.
 * A conversation of two is read by its two members alone, signed in with a session —
 * no permission reaches it, every one of staff's included, and no API token.
 */
export function canRead (room: Room, viewer: Viewer): boolean {
  if (room.members !== undefined) return isMemberOf(room, viewer)
  if (room.read === 'everyone') return true
  if (!viewer.signedIn) return false
  return room.read === 'signed-in' || viewer.holds(room.read) || viewer.holds(MANAGE_NODE)
}

/** Whether `viewer` may post in `room` (archived or not): its `post` node, or MANAGE_SHOUTBOX; in a conversation of two, its members. */
export function canPost (room: Room, viewer: Viewer): boolean {
  if (room.members !== undefined) return isMemberOf(room, viewer)
  return canRead(room, viewer) && (viewer.holds(room.post) || viewer.holds(MANAGE_NODE))
}

/** Whether guests may post in `room` now: it lets them, everyone reads it, it is not archived, and it is a room of the board (never a conversation of two). */
export function guestsMayPost (room: Room): boolean {
  return room.members === undefined && room.guestsPost && room.read === 'everyone' && !room.archived
}

/** One of the conversation's two members, by a session of theirs (a token acts for no one here). */
function isMemberOf (room: Room, viewer: Viewer): boolean {
  const { user } = viewer
  return user !== null && user.viaToken !== true && room.members !== undefined && room.members.includes(user.id)
}

/**
 * The rooms, read once and then kept in memory while they are known to be current: a
 * change of a room on any process (a `rooms` notice), or a gap in the notices, forgets them.
 */
export class Rooms {
  static readonly of = perContext(ctx => new Rooms(ctx))

  private readonly kept: Kept<Room[]>

  private constructor (private readonly ctx: AddonContext) {
    this.kept = new Kept(ctx, () => roomsRepository(ctx.db).all(ctx.db, true), notice => CHANGE_KINDS[notice.kind].rooms)
  }

  /** Runs `listener` whenever the rooms may have changed (on every process's change). */
  onChange (listener: () => void): void {
    this.kept.onForget(listener)
  }

  /**
   * Every room, archived ones too: the default room first, then by position; then the
   * conversations of two, which `canRead` opens to their members alone.
   */
  async all (): Promise<Room[]> {
    return await this.kept.current()
  }

  /** The default room. */
  async general (): Promise<Room> {
    const room = (await this.all()).find(each => each.id === GENERAL_ROOM_ID)
    if (room === undefined) throw new Error('the default room is missing (migration 010 makes it)')
    return room
  }

  /** The rooms listed to `viewer`: those they may read, archived ones left out, the default room first, then by position (never a conversation of two). */
  async listed (viewer: Viewer): Promise<Room[]> {
    return (await this.all()).filter(room => room.members === undefined && !room.archived && canRead(room, viewer))
  }

  /**
   * The room `slug` if `viewer` may read it (archived too); NOT_FOUND otherwise, exactly as
   * for a room that does not exist. A conversation of two is no room here: the archive,
   * search, the permalink and the rooms' own paths never reach one.
   */
  async readableBySlug (slug: string, viewer: Viewer): Promise<Room> {
    const room = (await this.all()).find(each => each.slug === slug)
    if (room === undefined || room.members !== undefined || !canRead(room, viewer)) throw new NotFound()
    return room
  }

  /** The conversation of two `id` if `viewer` is one of its members; NOT_FOUND otherwise, exactly as for none. */
  async readableConversation (id: number, viewer: Viewer): Promise<Room> {
    const room = (await this.all()).find(each => each.id === id)
    if (room?.members === undefined || !canRead(room, viewer)) throw new NotFound()
    return room
  }

  /** The slugs of the rooms `viewer` may read, archived ones too (their history stays readable). */
  async readableSlugs (viewer: Viewer): Promise<Set<string>> {
    return new Set((await this.all()).filter(room => canRead(room, viewer)).map(room => room.slug))
  }
}
