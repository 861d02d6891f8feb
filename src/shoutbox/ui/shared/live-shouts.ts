import { CHANGE_KIND_NAMES, CHANGE_KINDS, unhandled, type EventKind, type MemberEventKind } from '../../changes/kinds.js'
import type { FullShout, Reaction, ReplyTo, RoomShout } from '../../schemas.js'
import { excerptOf } from '../../excerpt.js'
import { DEFAULT_ROOM } from './shout-view.js'

/**
 * The newest shouts and the pinned ones of one room, kept current by the event stream: a
 * page (the widget, the panel's Shouts page) loads them once, then applies each event of
 * that room to what it holds; the events of the reader's other rooms go to `elsewhere`
 * (the widget's unread counts). Showing another room is one load. It reads them again only when the stream says it must — `ready` (a stream that
 * starts afresh), `reset` (a reconnect too far behind to be replayed) — or, with no
 * stream to be had, every 15 s. A load is one request (`/api/shoutbox/latest`), bounded:
 * the newest `maxShouts` (50 when unset) or `pageSize` of them, with the pins; never the
 * list endpoint, which holds every shout when `maxShouts` is unset.
 */
export interface LiveShoutsOptions {
  /**
   * Shouts a page of them holds, and no trimming: the panel shows every shout, `pageSize`
   * more with each `more()`. Without it (the widget): the newest `maxShouts`, the oldest
   * let go as new ones arrive.
   */
  readonly pageSize?: number
  /**
   * Called after every change to `shouts` or `pinned`; `fresh` holds the shouts whose
   * text the page has not seen before (to learn the @names they mention).
   */
  readonly changed: (fresh: readonly FullShout[]) => void
  /** Called for each event of the signed-in member's own (a mute made or lifted: `posting-changed`). */
  readonly heard?: (kind: MemberEventKind) => void
  /** The room shown first (its slug); the default room when absent. */
  readonly room?: string
  /**
   * Called when the stream connects again (the browser reconnected, or the page reopened
   * it), not the first time: what the reader may read may have changed since (the server
   * closes a stream whose rooms change).
   */
  readonly reconnected?: () => void
  /** Called when the stream says the rooms changed (made, changed, archived): the page asks which rooms there are. */
  readonly roomsChanged?: () => void
  /**
   * Who has the room shown open now (a `presence` event: at most once every 5 s, when it
   * changed). With it, the stream says which room the page shows (`showing`): the reader
   * counts as here in that room alone, and the stream opens again, where it left off,
   * when another room is shown.
   */
  readonly presence?: (here: { room: string, members: ReadonlyArray<{ username: string, since: number }>, guests: number }) => void
  /** Called for each new shout of the room shown, heard on the stream (not those of a load). */
  readonly arrived?: (shout: FullShout) => void
  /** Called for each event of a room not shown now, with its room. */
  readonly elsewhere?: (kind: EventKind, shout: RoomShout & { room: string }) => void
  /**
   * The board's origin, for a page of another site (the embed): it reads the board there,
   * as a visitor (without credentials). Absent: the page's own origin, as its member.
   */
  readonly origin?: string
}

/** The stream's events that change what a page shows (every kind on the stream); the rest (`ready`, `reset`) reload it. */
const SHOUT_EVENTS = CHANGE_KIND_NAMES.filter((kind): kind is EventKind => ['shout', 'id', 'reactions'].includes(CHANGE_KINDS[kind].carries))
type ShoutEvent = EventKind
/** The events a stream opened signed in hears of that member alone. */
const MEMBER_EVENTS = CHANGE_KIND_NAMES.filter((kind): kind is MemberEventKind => CHANGE_KINDS[kind].carries === 'member')

/** How many older shouts the widget asks for at a time. */
const OLDER_PAGE = 50

/** How often the shouts are read when no stream can be had. */
const POLL_MS = 15_000

export class LiveShouts {
  /** The room shown (its slug). */
  room: string
  /** Newest first. */
  shouts: FullShout[] = []
  /** Newest pin first. */
  pinned: FullShout[] = []
  /** The `before` of the next older archive page, or null when there is none. */
  older: number | null = null
  /** True once the first load has ended. */
  loaded = false

  /** With trimming, how many shouts are kept at most (the load's answer says). */
  private limit = 0
  /** Events heard while a load is under way, applied after it (the load may be older than they are). */
  private heldBack: Array<[ShoutEvent, unknown]> | undefined
  private loading: Promise<void> | undefined
  private loadAgain = false
  private stream: EventSource | undefined
  private polling: ReturnType<typeof setInterval> | undefined
  /** A stream has connected once: the next `open` is a reconnect. */
  private connected = false
  /** The id of the last event the stream brought: where a stream opened for another room resumes. */
  private lastEventId = ''
  /**
   * The reader's own reactions, by shout: as the server last answered them (a load, or the
   * reader's own reaction). The stream's counts say nothing of whose they are, and may
   * arrive after an answer that is newer than they are.
   */
  private readonly mine = new Map<number, Set<string>>()

  constructor (private readonly options: LiveShoutsOptions) {
    this.room = options.room ?? DEFAULT_ROOM
  }

  /** Shows room `slug`: what was held goes, the room's newest shouts and pins are read. */
  show (slug: string): Promise<void> {
    const moved = slug !== this.room
    this.room = slug
    // Here in the room shown alone: the stream is opened again for it, from where it was.
    if (moved && this.options.presence !== undefined && this.stream !== undefined) {
      this.stream.close()
      this.connected = false
      this.start()
    }
    this.shouts = []
    this.pinned = []
    this.older = null
    this.loaded = false
    this.options.changed([])
    // A load under way reads the room shown before: it is read once more.
    return this.reload()
  }

  /** Opens the stream; the first load follows its `ready` (or, without a stream, starts now). */
  start (): void {
    if (!('EventSource' in window)) {
      this.poll()
      return
    }
    // Every room the reader may read: the one shown is applied, the others counted.
    const query = new URLSearchParams()
    if (this.options.presence !== undefined) query.set('showing', this.room)
    if (this.lastEventId !== '') query.set('lastEventId', this.lastEventId)
    const search = query.toString()
    const stream = new EventSource(`${this.options.origin ?? ''}/api/shoutbox/stream${search === '' ? '' : `?${search}`}`)
    this.stream = stream
    // Whatever the event, the id the browser would resume from (it keeps the last one sent).
    const resumeFrom = (event: Event): void => {
      const id = (event as MessageEvent<string>).lastEventId
      if (id !== '') this.lastEventId = id
    }
    for (const kind of [...SHOUT_EVENTS, 'ready', 'reset']) stream.addEventListener(kind, resumeFrom)
    for (const kind of SHOUT_EVENTS) {
      stream.addEventListener(kind, event => this.hear(kind, (event as MessageEvent<string>).data))
    }
    for (const kind of MEMBER_EVENTS) stream.addEventListener(kind, () => this.options.heard?.(kind))
    stream.addEventListener('rooms-changed', () => this.options.roomsChanged?.())
    stream.addEventListener('presence', event => {
      try {
        this.options.presence?.(JSON.parse((event as MessageEvent<string>).data))
      } catch {
        // a frame this page cannot read changes nothing it shows
      }
    })
    // A stream that starts afresh, or one that could not be caught up: what is held is out of date.
    for (const kind of ['ready', 'reset']) stream.addEventListener(kind, () => void this.reload())
    stream.addEventListener('open', () => {
      this.stopPolling()
      if (this.connected) this.options.reconnected?.()
      this.connected = true
    })
    // The browser reconnects by itself (and the server replays what was missed), unless it
    // gave up — a refusal, such as too many streams from one client: then read by polling.
    stream.addEventListener('error', () => {
      if (stream.readyState === EventSource.CLOSED) this.poll()
    })
  }

  stop (): void {
    this.stream?.close()
    this.stopPolling()
  }

  /**
   * Opens the stream anew: the page signed in or out, and a stream hears the events of
   * the member whose session opened it. It starts afresh (`ready`), so what is held is read again.
   */
  reopen (): void {
    if (this.stream === undefined) return
    this.stop()
    this.lastEventId = ''
    this.start()
  }

  /** A shout this page posted or edited, from the server's answer (its stream event is then a repeat). */
  put (shout: FullShout): void {
    this.learnMine([shout])
    this.apply('shout-edited', shout)
    if (!this.shouts.some(s => s.id === shout.id)) this.apply('shout-created', shout)
    this.options.changed([])
  }

  /** A shout's reactions as the server answered this page's own reaction (with `mine`). */
  react (id: number, reactions: readonly Reaction[]): void {
    this.learnMine([{ id, reactions }])
    const recount = (list: FullShout[]): FullShout[] => list.map(s => s.id === id ? { ...s, reactions: [...reactions] } : s)
    this.shouts = recount(this.shouts)
    this.pinned = recount(this.pinned)
    this.options.changed([])
  }

  /** A shout this page deleted. */
  remove (id: number): void {
    this.apply('shout-deleted', { id })
    this.options.changed([])
  }

  /**
   * Reads the next older page of the archive (the panel's "Older shouts", the widget's
   * "Load older shouts"); false when there is none. The widget then holds that many more:
   * its limit grows by what came, and a new shout lets only the oldest one go, as before.
   */
  async more (): Promise<boolean> {
    if (this.older === null) return false
    const room = this.room
    const page = await this.fetchShouts(`/api/shoutbox/archive?room=${encodeURIComponent(room)}&limit=${this.options.pageSize ?? OLDER_PAGE}&before=${this.older}`)
    if (page === undefined || room !== this.room) return true
    const known = new Set(this.shouts.map(shout => shout.id))
    const added = page.shouts.filter(shout => !known.has(shout.id))
    this.learnMine(added)
    this.shouts = [...this.shouts, ...added].sort((a, b) => b.id - a.id)
    if (this.options.pageSize === undefined) this.limit += added.length
    this.older = page.next ?? null
    this.options.changed(added)
    return this.older !== null
  }

  /** The newest shouts and the pins, read anew; a reload asked for meanwhile reads once more afterwards. */
  reload (): Promise<void> {
    if (this.loading !== undefined) {
      this.loadAgain = true
      return this.loading
    }
    this.loading = (async () => {
      do {
        this.loadAgain = false
        this.heldBack = []
        const room = this.room
        const read = await this.read()
        const heard = this.heldBack
        this.heldBack = undefined
        // Another room was asked for meanwhile: this answer is not what is shown.
        if (room !== this.room) {
          this.loadAgain = true
          continue
        }
        if (read !== undefined) {
          ;({ shouts: this.shouts, pinned: this.pinned, older: this.older } = read)
          this.mine.clear()
          this.learnMine([...this.shouts, ...this.pinned])
          this.loaded = true
        }
        for (const [kind, data] of heard) this.apply(kind, data)
        if (read !== undefined || heard.length > 0) this.options.changed([...this.shouts, ...this.pinned])
      } while (this.loadAgain)
    })().finally(() => { this.loading = undefined })
    return this.loading
  }

  /** The newest shouts and the pins, in one request (the panel: as many as it shows now); undefined when the server could not be read. */
  private async read (): Promise<{ shouts: FullShout[], pinned: FullShout[], older: number | null } | undefined> {
    const pageSize = this.options.pageSize
    const limit = pageSize === undefined ? undefined : Math.min(Math.max(this.shouts.length, pageSize), 100)
    const query = new URLSearchParams({ room: this.room })
    if (limit !== undefined) query.set('limit', String(limit))
    const answer = await this.fetchShouts(`/api/shoutbox/latest?${query.toString()}`) as { shouts: FullShout[], pinned: FullShout[], next: number | null, limit: number } | undefined
    if (answer === undefined) return undefined
    this.limit = answer.limit
    return { shouts: answer.shouts, pinned: answer.pinned, older: answer.next }
  }

  private hear (kind: ShoutEvent, raw: string): void {
    let data: unknown
    try {
      data = JSON.parse(raw)
    } catch {
      return
    }
    const room = (data as { room?: unknown }).room
    if (typeof room === 'string' && room !== this.room) {
      this.options.elsewhere?.(kind, data as RoomShout & { room: string })
      return
    }
    if (this.heldBack !== undefined) {
      this.heldBack.push([kind, data])
      return
    }
    const fresh = this.apply(kind, data)
    this.options.changed(fresh === undefined ? [] : [fresh])
    if (kind === 'shout-created' && fresh !== undefined) this.options.arrived?.(fresh)
  }

  /**
   * Applies one event to what is held; returns the shout it brought, if any. Repeats change
   * nothing. The stream's shouts carry no reactions (they come as `shout-reactions`, counts
   * without `mine`): a shout keeps the reactions held, and which of them are the reader's.
   */
  private apply (kind: ShoutEvent, data: unknown): FullShout | undefined {
    const event = data as RoomShout & { reactions?: Reaction[] }
    const held = this.shouts.find(s => s.id === event.id) ?? this.pinned.find(s => s.id === event.id)
    const shout: FullShout = { ...event, reactions: event.reactions ?? held?.reactions ?? [] }
    const replace = (list: FullShout[]): FullShout[] => list.map(s => s.id === shout.id ? shout : s)
    switch (kind) {
      case 'shout-deleted':
        // The event names the shout alone; replies to it quote it no more.
        this.shouts = this.requote(this.shouts.filter(s => s.id !== shout.id), shout.id, () => ({ id: shout.id, deleted: true }))
        this.pinned = this.requote(this.pinned.filter(s => s.id !== shout.id), shout.id, () => ({ id: shout.id, deleted: true }))
        return undefined
      case 'shout-created':
        if (this.shouts.some(s => s.id === shout.id)) return undefined
        this.shouts = [shout, ...this.shouts].sort((a, b) => b.id - a.id)
        // A full list lets its oldest go; the archive still has it.
        if (this.options.pageSize === undefined && this.shouts.length > this.limit) {
          this.older = this.shouts[this.limit - 1]?.id ?? this.older
          this.shouts = this.shouts.slice(0, this.limit)
        }
        return shout
      case 'shout-restored': {
        // Back as it was, in its place by id: replies quote it again. A shout older than
        // every one held, with older ones in the archive, is the archive's.
        const oldest = this.shouts.at(-1)?.id
        const inPlace = this.shouts.some(s => s.id === shout.id) || this.older === null || oldest === undefined || shout.id > oldest
        const quoted = (): ReplyTo => ({ id: shout.id, username: shout.username, excerpt: excerptOf(shout.message) })
        const { held: _, ...restored } = shout as FullShout & { held?: true }
        if (inPlace) this.shouts = [restored, ...this.shouts.filter(s => s.id !== shout.id)].sort((a, b) => b.id - a.id)
        this.shouts = this.requote(this.shouts, shout.id, quoted)
        this.pinned = this.requote(this.pinned, shout.id, quoted)
        if (this.options.pageSize === undefined && this.shouts.length > this.limit) {
          this.older = this.shouts[this.limit - 1]?.id ?? this.older
          this.shouts = this.shouts.slice(0, this.limit)
        }
        return inPlace ? restored : undefined
      }
      case 'shout-edited': {
        const quote = (replyTo: ReplyTo): ReplyTo => replyTo !== null && 'excerpt' in replyTo ? { ...replyTo, excerpt: excerptOf(shout.message) } : replyTo
        this.shouts = this.requote(replace(this.shouts), shout.id, quote)
        this.pinned = this.requote(replace(this.pinned), shout.id, quote)
        return shout
      }
      case 'shout-pinned':
        this.pinned = [shout, ...this.pinned.filter(s => s.id !== shout.id)]
        return shout
      case 'shout-unpinned':
        this.pinned = this.pinned.filter(s => s.id !== shout.id)
        return undefined
      case 'shout-reactions': {
        // Counts for everyone: which are the reader's, the server said last.
        const mine = this.mine.get(shout.id)
        const reactions = (event.reactions ?? []).map(({ emoji, count }) => ({ emoji, count, mine: mine?.has(emoji) ?? false }))
        const recount = (list: FullShout[]): FullShout[] => list.map(s => s.id === shout.id ? { ...s, reactions } : s)
        this.shouts = recount(this.shouts)
        this.pinned = recount(this.pinned)
        return undefined
      }
      default:
        return unhandled(kind)
    }
  }

  /** Notes which of `shouts`' reactions are the reader's, as answered (a visitor's answers say none). */
  private learnMine (shouts: ReadonlyArray<{ readonly id: number, readonly reactions: readonly Reaction[] }>): void {
    for (const shout of shouts) {
      if (shout.reactions.some(reaction => reaction.mine === true)) this.mine.set(shout.id, new Set(shout.reactions.filter(reaction => reaction.mine === true).map(reaction => reaction.emoji)))
      else this.mine.delete(shout.id)
    }
  }

  /** `list` with the quoted line of the replies to shout `id` made anew by `quote`. */
  private requote (list: FullShout[], id: number, quote: (replyTo: ReplyTo) => ReplyTo): FullShout[] {
    return list.map(s => s.replyTo?.id === id ? { ...s, replyTo: quote(s.replyTo) } : s)
  }

  /** Reads now and every 15 s; each time, a stream the browser gave up on is tried again. */
  private poll (): void {
    void this.reload()
    this.polling ??= setInterval(() => {
      void this.reload()
      if (this.stream?.readyState === EventSource.CLOSED) this.start()
    }, POLL_MS)
  }

  private stopPolling (): void {
    if (this.polling !== undefined) clearInterval(this.polling)
    this.polling = undefined
  }

  private async fetchShouts (path: string): Promise<{ shouts: FullShout[], next?: number | null } | undefined> {
    const origin = this.options.origin
    try {
      const response = await fetch((origin ?? '') + path, { credentials: origin === undefined ? 'same-origin' : 'omit' })
      return response.ok ? await response.json() as { shouts: FullShout[], next?: number | null } : undefined
    } catch {
      return undefined // offline for a moment: the stream's next reset, or the next poll, reads again
    }
  }
}
