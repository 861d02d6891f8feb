import { randomUUID } from 'node:crypto'
import { EventFrame, type AddonContext } from '../../sdk/index.js'
import { perContext } from '../per-context.js'
import { Rooms } from '../rooms.js'
import { StreamHub } from '../stream-hub.js'
import { presenceRepository, type RoomPresence } from './presence-repository.js'

/** How often each process writes who it has here, and reads who every process has. */
export const BEAT_MS = 2_000
/** A process's rows older than this are not counted (it stopped, or cannot reach the database). */
export const STALE_MS = 10_000
/** At most one `presence` event per room in this long. */
export const FRAME_EVERY_MS = 5_000
/** After a stream opens or closes, who is here is written this soon (not waiting for the beat)… */
const SOON_MS = 200
/** …but no sooner than this after the last beat began: each beat walks every reader here, and while readers come and go it would run five times a second. */
const BEATS_APART_MS = 1_000

/**
 * Who has each room open: the readers of the live stream, on every process. Each process
 * writes what it sees every BEAT_MS (and soon after a stream opens or closes) to the
 * database, and reads what all of them wrote; a process that stops writing drops out
 * after STALE_MS. A reader is present in the room its page shows (the stream's `showing`),
 * or in every room its stream hears when it does not say. A member shows by
 * name (once, however many streams they hold) unless they turned `showPresence` off;
 * visitors and members not shown are counted as `guests`.
 *
 * Each process sends its own readers of a room a `presence` event when the room's
 * presence changed, at most once every FRAME_EVERY_MS (a change inside that time goes out
 * at the next beat after it), so one frame per room per five seconds at most, whatever
 * the number of readers joining and leaving.
 */
export class Presence {
  static readonly of = perContext(ctx => new Presence(ctx))

  /** This process, as its rows name it. */
  readonly process = randomUUID()
  private timer: NodeJS.Timeout | undefined
  private soon: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  /** The last beat wrote that nobody is here on this process (the rows of processes that stopped are taken out by the others' beats, and ignored once stale). */
  private empty = false
  /** When the last beat began (ms). */
  private lastBeat = 0
  /** A beat was asked for while one ran. */
  private again = false
  private stopped = false
  /** What each room's readers here were last told, and when (by slug). */
  private readonly told = new Map<string, { key: string, at: number }>()

  private constructor (private readonly ctx: AddonContext) {}

  start (): void {
    this.timer = setInterval(() => { void this.beat() }, BEAT_MS).unref()
    StreamHub.of(this.ctx).onReadersChange(() => {
      this.soon ??= setTimeout(() => {
        this.soon = undefined
        void this.beat()
      }, Math.max(SOON_MS, this.lastBeat + BEATS_APART_MS - Date.now())).unref()
    })
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    clearTimeout(this.soon)
    await this.running
    await presenceRepository(this.ctx.db).leave(this.process).catch(error => this.ctx.log.warn({ err: error }, 'could not take this process out of presence'))
  }

  /** Who has room `roomId` open now, on every process. */
  async of (roomId: number): Promise<RoomPresence> {
    return (await presenceRepository(this.ctx.db).all(Date.now() - STALE_MS, roomId)).get(roomId) ?? { members: [], guests: 0 }
  }

  /**
   * One beat: write what this process sees, read what all see, tell this process's readers
   * what changed. One at a time: one asked for while another runs follows it (what it saw
   * may be out of date already).
   */
  beat (): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.running !== undefined) {
      this.again = true
      return this.running
    }
    this.lastBeat = Date.now()
    this.running = this.beatOnce()
      .catch(error => this.ctx.log.warn({ err: error }, 'could not keep presence'))
      .finally(() => {
        this.running = undefined
        if (this.again) {
          this.again = false
          void this.beat()
        }
      })
    return this.running
  }

  private async beatOnce (): Promise<void> {
    const hub = StreamHub.of(this.ctx)
    const rooms = await Rooms.of(this.ctx).all()
    const idOf = new Map(rooms.map(room => [room.slug, room.id]))
    // Who is here on this process, by room: members by name (earliest stream), others counted.
    const here = new Map<number, { members: Map<string, { since: number, userId: number }>, guests: number }>()
    for (const { viewer, rooms: heard, since } of hub.present()) {
      for (const slug of heard) {
        const id = idOf.get(slug)
        if (id === undefined) continue
        let room = here.get(id)
        if (room === undefined) here.set(id, room = { members: new Map(), guests: 0 })
        const user = viewer.user
        if (user === null) {
          room.guests++
          continue
        }
        const known = room.members.get(user.username)
        if (known === undefined || since < known.since) room.members.set(user.username, { since, userId: user.id })
      }
    }
    // Nobody here, and the last beat wrote so: nothing to write, nobody to tell.
    if (here.size === 0 && this.empty) return
    const repository = presenceRepository(this.ctx.db)
    const hidden = await repository.hiddenOf([...new Set([...here.values()].flatMap(room => [...room.members.values()].map(member => member.userId)))])
    const written = new Map<number, RoomPresence>()
    for (const [id, room] of here) {
      const shown = [...room.members].filter(([, member]) => !hidden.has(member.userId))
      written.set(id, { members: shown.map(([username, { since }]) => ({ username, since })), guests: room.guests + room.members.size - shown.length })
    }
    const now = Date.now()
    await repository.write(this.process, written, now, now - STALE_MS)
    this.empty = here.size === 0
    if (this.stopped) return
    const everywhere = await repository.all(now - STALE_MS)
    // Tell this process's readers present in each room what changed (at most once in FRAME_EVERY_MS).
    const heardHere = new Set([...hub.present()].flatMap(reader => [...reader.rooms]))
    for (const room of rooms) {
      if (!heardHere.has(room.slug)) {
        this.told.delete(room.slug)
        continue
      }
      const presence = everywhere.get(room.id) ?? { members: [], guests: 0 }
      const data = JSON.stringify({ room: room.slug, members: presence.members, guests: presence.guests })
      const last = this.told.get(room.slug)
      if (last?.key === data || (last !== undefined && now - last.at < FRAME_EVERY_MS)) continue
      this.told.set(room.slug, { key: data, at: now })
      hub.writeToPresent(room.slug, new EventFrame(`event: presence\ndata: ${data}\n\n`))
    }
  }
}
