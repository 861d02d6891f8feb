import { prepared, type Database, type SqlPart, type Transaction } from '../sdk/index.js'
import { GENERAL_ROOM_ID, type Room } from './rooms.js'
import { EXCERPT_LENGTH } from './excerpt.js'
import type { RoomShout, Shout } from './schemas.js'
import { EVENTS_TABLE, PINS_TABLE, ROOMS_TABLE, SHOUTS_TABLE } from './tables.js'

const COLUMNS = ['id', 'message', 'username', 'date'] as const

/** The slug of the room of the shout whose `room_id` is `column`, as SQL (a room's slug never changes). */
const slugOf = (column: string): string => `(select slug from ${ROOMS_TABLE} where ${ROOMS_TABLE}.id = ${column})`

/**
 * What the shout whose `reply_to_id` is `column` answers, as SQL json: the original's id,
 * author and first words (PostgreSQL's `left` counts code points), or, once the original
 * is deleted, its id and `deleted`; null for a shout that answers none.
 */
export const replyToOf = (column: string): string => `case when ${column} is null then null else coalesce(
  (select json_build_object('id', original.id, 'username', original.username, 'excerpt', left(original.message, ${EXCERPT_LENGTH})) from ${SHOUTS_TABLE} as original where original.id = ${column}),
  json_build_object('id', ${column}, 'deleted', true)) end`

/** A shout as webhooks tell of it (`shout.created`, `shout.edited`), from a row `s` of the shouts written. */
const WEBHOOK_SHOUT = "jsonb_build_object('id', s.id, 'room', s.room, 'username', s.username, 'message', s.message, 'date', s.date, 'replyTo', s.reply_to_id)"

/** What a shout's webhook deliveries are about: deleting the shout takes its text out of those still waiting. */
export const shoutSubject = (id: number): string => `shout:${id}`

/** `{"bot": true}` for a bot's shout (the row `row`), else nothing: a shout's json carries `bot` only when it is one. */
export const botOf = (row: string): string => `case when ${row}.bot then '{"bot":true}'::jsonb else '{}'::jsonb end`

/** `{"edited": <ms>}` for a shout (the row `row`) whose text was changed, else nothing: a shout's json carries `edited` only then. */
export const editedOf = (row: string): string => `case when ${row}.edited_at is null then '{}'::jsonb else jsonb_build_object('edited', ${row}.edited_at) end`

/** The json of a stream event's shout, from the row `s` (its fields, its room's slug as `room`, its `reply_to_id`, `bot`, `edited_at`). */
const EVENT_SHOUT = `(jsonb_build_object('id', s.id, 'message', s.message, 'username', s.username, 'date', s.date, 'room', s.room, 'replyTo', ${replyToOf('s.reply_to_id')}) || ${botOf('s')} || ${editedOf('s')})`

/**
 * A statement's part (a CTE, after one named `s` that returns deleted shouts' ids, taking
 * the events table as its binding): the replies to those shouts, in the stream's
 * history, quote them no more — their `replyTo` says the original is deleted.
 */
const BLANK_QUOTES = `blanked as (update ?? set shout = jsonb_set(shout, '{replyTo}', jsonb_build_object('id', (shout->'replyTo'->>'id')::bigint, 'deleted', true))
          where (shout->'replyTo'->>'id')::bigint in (select id from s))`

/** A change to the shouts together with the id of the stream event recording it. */
export interface Recorded {
  readonly shout: RoomShout
  readonly eventId: number
}

/** A shout to store: `authorId` is the user's id, kept to know whose shout it is (never answered); `roomId` its room; `replyToId` the shout it answers. */
export interface NewShout extends Omit<Shout, 'id'> {
  readonly authorId: number
  /** Posted by a bot account. */
  readonly bot: boolean
  readonly roomId: number
  readonly replyToId: number | null
}

interface RecordedRow extends RoomShout {
  readonly event_id: number
  /** Only where the statement returns it (an edit's). */
  readonly edited_at?: number | string | null
}

const recorded = ({ event_id: eventId, edited_at: editedAt, ...shout }: RecordedRow): Recorded =>
  ({ shout: editedAt === undefined || editedAt === null ? shout : { ...shout, edited: Number(editedAt) }, eventId })

/** The ids a search reads first (see `search`): a phrase every shout could hold costs a few tens of milliseconds here, on either database. */
const SEARCH_FIRST_RANGE = 5_000
/** A search begins no range it expects to end after this long; its page then says where it stopped. */
const SEARCH_BUDGET_MS = 80
/** A range that took less than this was cheap (the index found few shouts): the next is four times wider. */
const CHEAP_RANGE_MS = 10

export interface ArchiveQuery {
  /** The room whose shouts are read. */
  readonly room: Pick<Room, 'id' | 'slug'>
  /** Only shouts with a smaller id. */
  readonly before?: number | undefined
  readonly limit: number
  /** Words to find (web-search syntax: "a phrase", -not, or); never parsed as SQL or tsquery syntax. */
  readonly q?: string | undefined
  /** Leave out the shouts of these accounts (the reader ignores them). */
  readonly excludeAuthors?: readonly number[]
}

/**
 * The shouts, and with every change the row of `shoutbox_events` the live stream sends:
 * one statement writes both, so neither can exist without the other.
 */
export function shoutsRepository (db: Database) {
  /** `change` is a statement on the shouts table; its rows are recorded as events of `kind`, with the whole shout. */
  const withEvents = (kind: string, change: SqlPart, trx: Transaction) => trx.raw<{ rows: RecordedRow[] }>(`
    with s as (? returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot, edited_at),
    e as (insert into ?? (kind, shout, created_at)
          select ?, ${EVENT_SHOUT}, ? from s
          order by s.id
          returning id, (shout->>'id')::bigint as shout_id, shout->'replyTo' as reply_to)
    select s.id, s.message, s.username, s.date, s.room, e.reply_to as "replyTo", s.edited_at, e.id as event_id from s join e on e.shout_id = s.id order by s.id`,
  [change, EVENTS_TABLE, kind, Date.now()])

  /** The `replyTo` of a shout read from the shouts table. */
  const REPLY_TO = db.raw(`${replyToOf(`${SHOUTS_TABLE}.reply_to_id`)} as "replyTo"`)

  return {
    /**
     * The seed's list: the default room's shouts, newest first (the store's order); `limit`
     * null → all of them; `before` → only those with a smaller id. The cut is made in SQL.
     */
    listQuery (limit: number | null, before?: number) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).where('room_id', GENERAL_ROOM_ID).orderBy('id', 'desc')
      if (before !== undefined) query.where('id', '<', before)
      return limit === null ? query : query.limit(limit)
    },

    async list (limit: number | null, before?: number): Promise<Shout[]> {
      return this.listQuery(limit, before)
    },

    /**
     * Newest first, by id: a walk of the primary key backwards from `before`, filtered by
     * the search index when `q` is given (PostgreSQL picks which index leads).
     */
    archiveQuery ({ room, before, limit, q, excludeAuthors = [] }: ArchiveQuery) {
      const query = db(SHOUTS_TABLE).select<RoomShout[]>(...COLUMNS, db.raw('?::text as room', [room.slug]), REPLY_TO)
        .where('room_id', room.id).orderBy('id', 'desc').limit(limit)
      if (before !== undefined) query.where('id', '<', before)
      // Shouts stored before authors were kept (no author_id) are nobody's to ignore.
      if (excludeAuthors.length > 0) query.where(inner => inner.whereNull('author_id').orWhereNotIn('author_id', [...excludeAuthors]))
      // to_tsvector('simple', message) is the search index's expression (migrations/005), word for word: so PostgreSQL uses it.
      if (q !== undefined) query.whereRaw("to_tsvector('simple', message) @@ websearch_to_tsquery('simple', ?)", [q])
      return query
    },

    async archive (query: ArchiveQuery): Promise<RoomShout[]> {
      return this.archiveQuery(query)
    },

    /**
     * Up to `limit` shouts with the words `q`, newest first, below `before`; and where the
     * search stopped (`searchedTo`: the shouts from that id down were not searched), or
     * null when it went to the first shout.
     *
     * A search reads ranges of ids, newest first, and each is one query in which
     * PostgreSQL picks how: the search index (a rare word, found at once in however many
     * shouts) or the range's primary key (a common word: the page is full after a few
     * rows). Ranges whose query was cheap grow fourfold, so a rare word crosses a million
     * shouts in a few queries. The cost of a range is bounded by its size, whatever the
     * words: a phrase of words every shout holds ("about and", which none holds in that
     * order) reads every row of its range. A range that would end past `budgetMs` (by what
     * the last one cost) is not begun, and the page ends with what was found: the next
     * page searches on from there.
     */
    async search ({ room, before, limit, q, excludeAuthors }: ArchiveQuery & { q: string }, { firstRange = SEARCH_FIRST_RANGE, budgetMs = SEARCH_BUDGET_MS } = {}): Promise<{ shouts: RoomShout[], searchedTo: number | null }> {
      // No word at all (only signs): nothing to look for.
      const { rows: [parsed] } = await db.raw<{ rows: Array<{ words: string }> }>("select websearch_to_tsquery('simple', ?)::text as words", [q])
      if (parsed === undefined || parsed.words === '') return { shouts: [], searchedTo: null }
      const started = Date.now()
      const shouts: RoomShout[] = []
      let top = before ?? (Number((await db(SHOUTS_TABLE).where('room_id', room.id).max<{ max: number | null }>('id as max').first())?.max ?? 0) + 1)
      let range = firstRange
      while (shouts.length < limit && top > 1) {
        const bottom = Math.max(1, top - range)
        const began = Date.now()
        shouts.push(...await this.archiveQuery({ room, before: top, limit: limit - shouts.length, q, excludeAuthors }).where('id', '>=', bottom))
        top = bottom
        const cost = Date.now() - began
        const cheap = cost < CHEAP_RANGE_MS
        if (cheap) range *= 4
        if (Date.now() - started + (cheap ? 4 : 1) * cost >= budgetMs) break
      }
      return { shouts, searchedTo: shouts.length < limit && top > 1 ? top : null }
    },

    /** Those of `ids` that a bot account posted, and those whose text was changed (when, last). One query. */
    async marks (ids: readonly number[]): Promise<{ bots: Set<number>, edited: Map<number, number> }> {
      const bots = new Set<number>()
      const edited = new Map<number, number>()
      if (ids.length === 0) return { bots, edited }
      const rows: Array<{ id: number | string, bot: boolean, edited_at: number | string | null }> = await db(SHOUTS_TABLE).whereIn('id', [...ids])
        .where(query => query.where('bot', true).orWhereNotNull('edited_at')).select('id', 'bot', 'edited_at')
      for (const row of rows) {
        if (row.bot) bots.add(Number(row.id))
        if (row.edited_at !== null) edited.set(Number(row.id), Number(row.edited_at))
      }
      return { bots, edited }
    },

    /** Whether account `authorId` has a shout on the board in one of `roomIds` (held and hidden shouts are off it): one index probe. */
    async wroteIn (authorId: number, roomIds: readonly number[]): Promise<boolean> {
      if (roomIds.length === 0) return false
      return (await db(SHOUTS_TABLE).where('author_id', authorId).whereIn('room_id', [...roomIds]).first('id')) !== undefined
    },

    /** The shout with its room's slug, whatever its room (the caller decides who may see it). */
    async find (id: number): Promise<RoomShout | undefined> {
      const [shout] = await db(SHOUTS_TABLE).select<RoomShout[]>(...COLUMNS, db.raw(`${slugOf('room_id')} as room`), REPLY_TO).where('id', id)
      return shout
    },

    /**
     * Deletes the oldest shouts dated before `cutoff`, at most `limit` of them and never a
     * pinned one, each recorded exactly as `delete` records one: the shout's earlier events
     * leave the stream's history, and its `shout-deleted` event carries the id alone.
     */
    async prune (cutoff: number, limit: number, trx: Transaction): Promise<Recorded[]> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(`
        with s as (delete from ?? where id in (
            select id from ?? as old where date < ? and not exists (select 1 from ?? as pin where pin.shout_id = old.id)
            order by date limit ?)
          returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot),
        forgotten as (delete from ?? where (shout->>'id')::bigint in (select id from s)),
        ${BLANK_QUOTES},
        e as (insert into ?? (kind, shout, created_at)
              select 'shout-deleted', jsonb_build_object('id', id, 'room', room), ? from s
              order by s.id
              returning id, (shout->>'id')::bigint as shout_id)
        select s.id, s.message, s.username, s.date, s.room, ${replyToOf('s.reply_to_id')} as "replyTo", e.id as event_id from s join e on e.shout_id = s.id order by s.id`,
      [SHOUTS_TABLE, SHOUTS_TABLE, cutoff, PINS_TABLE, limit, EVENTS_TABLE, EVENTS_TABLE, EVENTS_TABLE, Date.now()])
      return result.rows.map(recorded)
    },

    /** True when the default room keeps more than `count` shouts (the seed's list): a walk of an index, `count` + 1 rows at most. */
    /** How many shouts `authorId` has on the board, counted up to `upTo`. */
    async countByAuthor (authorId: number, upTo: number): Promise<number> {
      const rows = await db(SHOUTS_TABLE).select('id').where('author_id', authorId).limit(upTo)
      return rows.length
    },

    async moreThan (count: number): Promise<boolean> {
      const rows = await db(SHOUTS_TABLE).select('id').where('room_id', GENERAL_ROOM_ID).orderBy('id').offset(count).limit(1)
      return rows.length > 0
    },

    /** How many of the shouts kept now were posted on each UTC day since `since` (ms), by the day's first millisecond. */
    async perDay (since: number): Promise<Map<number, number>> {
      const rows = await db(SHOUTS_TABLE)
        .where('date', '>=', since)
        .select(db.raw('(date / 86400000) * 86400000 as day'))
        .count<Array<{ day: number | string, count: number | string }>>({ count: '*' })
        .groupByRaw('1')
      return new Map(rows.map(row => [Number(row.day), Number(row.count)]))
    },

    /**
     * Stores the shouts (ids in the order of `shouts`) and everything that goes with them
     * as one statement, which is its own transaction: the shouts, their stream events, `also` (the activity log's insertion),
     * and the change notice, which the statement builds from the rows it wrote and sends
     * with `announce` (the cluster's `notifying`). One round trip where a transaction
     * of the same writes takes five: the busy board's path. Prepared (`prepared`): planning
     * it cost PostgreSQL more than running it. Answers the notice with every
     * event in it, and the text sent when that is another: the notice without its events,
     * past `maxNoticeBytes` of PostgreSQL's text (a little longer than JSON.stringify's).
     */
    async insertAnnounced (shouts: readonly NewShout[], parts: {
      readonly also: SqlPart
      /** The webhooks' deliveries of the shouts written (`ctx.webhooks.insertion`), given their rows. */
      readonly hooked: (rows: SqlPart) => SqlPart
      readonly announce: (text: SqlPart) => SqlPart
      readonly maxNoticeBytes: number
    }): Promise<{ notice: string, sent: string | null }> {
      const result = await prepared(db.raw<{ rows: Array<{ notice: string, sent: string | null }> }>(`
        with s as (insert into ?? (message, username, date, author_id, room_id, reply_to_id, bot)
              select item->>'message', item->>'username', (item->>'date')::bigint, (item->>'authorId')::integer, (item->>'roomId')::integer, (item->>'replyToId')::bigint, (item->>'bot')::boolean
              from jsonb_array_elements(?::jsonb) with ordinality as given(item, position)
              order by position
              returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot, edited_at),
        e as (insert into ?? (kind, shout, created_at)
              select 'shout-created', ${EVENT_SHOUT}, ? from s
              order by s.id
              returning id, (shout->>'id')::bigint as shout_id, shout->'replyTo' as reply_to),
        also as (?),
        hooked as (?),
        built as (select
              json_build_object('kind', 'shout-created', 'eventIds', json_agg(e.id order by e.id), 'events', json_agg(json_build_object(
                'id', e.id, 'kind', 'shout-created', 'shout', jsonb_build_object('id', s.id, 'message', s.message, 'username', s.username, 'date', s.date, 'room', s.room, 'replyTo', e.reply_to) || ${botOf('s')}
              ) order by e.id))::text as notice,
              json_build_object('kind', 'shout-created', 'eventIds', json_agg(e.id order by e.id))::text as bare
            from s join e on e.shout_id = s.id),
        chosen as (select notice, case when octet_length(notice) > ? then bare end as shorter from built)
        select notice, shorter as sent, ? as announced from chosen`,
      [SHOUTS_TABLE, JSON.stringify(shouts), EVENTS_TABLE, Date.now(), parts.also, parts.hooked(db.raw(`select ${WEBHOOK_SHOUT} as data, 'shout:' || s.id as subject from s`)), parts.maxNoticeBytes, parts.announce(db.raw('coalesce(shorter, notice)'))]))
      const [row] = result.rows
      if (row === undefined) throw new Error('the publish statement answered no row')
      return row
    },

    /**
     * Who wrote the shout, its text, when, and whether a moderator edited or pinned it; its row
     * locked until `trx` ends (a pin locks it too, so neither misses the other);
     * undefined when there is none.
     */
    async authorOf (id: number, trx: Transaction): Promise<{ authorId: number | null, message: string, date: number, moderated: boolean, pinned: boolean, roomId: number } | undefined> {
      const row = await trx(SHOUTS_TABLE).where({ id }).forUpdate()
        .first<{ author_id: number | null, message: string, date: number, moderated: boolean, pinned: boolean, room_id: number } | undefined>(
          'author_id', 'message', 'date', 'moderated', 'room_id', trx.raw('exists (select 1 from ?? where shout_id = ??.id) as pinned', [PINS_TABLE, SHOUTS_TABLE]))
      return row === undefined
        ? undefined
        : { authorId: row.author_id, message: row.message, date: Number(row.date), moderated: row.moderated, pinned: row.pinned, roomId: row.room_id }
    },

    /** The shout, its room's id and its author's id (null for shouts stored before authors were kept); with `trx`, its row locked until `trx` ends. */
    async findWithAuthor (id: number, trx: Database = db): Promise<(RoomShout & { authorId: number | null, roomId: number }) | undefined> {
      const query = trx(SHOUTS_TABLE).where({ id })
        .first<(RoomShout & { author_id: number | null, room_id: number }) | undefined>(...COLUMNS, 'author_id', 'room_id', db.raw(`${slugOf('room_id')} as room`), REPLY_TO)
      const row = await (trx.isTransaction === true ? query.forUpdate() : query)
      if (row === undefined) return undefined
      const { author_id: authorId, room_id: roomId, ...shout } = row
      return { ...shout, id: Number(shout.id), date: Number(shout.date), authorId, roomId }
    },

    /**
     * The shout with its new text, or undefined when there was none with that id. The
     * earlier events that carried it carry the new text from now on: words edited out
     * cannot be read back by replaying the stream's history. `byModerator` marks the
     * shout as no longer its author's to edit.
     */
    async edit (id: number, message: string, byModerator: boolean, trx: Transaction): Promise<Recorded | undefined> {
      const result = await withEvents('shout-edited', trx.raw(`update ?? set message = ?, edited_at = ?${byModerator ? ', moderated = true' : ''} where id = ?`, [SHOUTS_TABLE, message, Date.now(), id]), trx)
      const row = result.rows[0]
      if (row === undefined) return undefined
      // The old text leaves the history: earlier edits are superseded by this one (so a
      // shout keeps one edit event, however often it is edited), and the other events
      // that carried the shout carry the new text.
      await trx.raw(`with superseded as (delete from ?? where (shout->>'id')::bigint = ? and id < ? and kind = 'shout-edited')
        update ?? set shout = jsonb_set(shout, '{message}', to_jsonb(?::text))
        where (shout->>'id')::bigint = ? and id < ? and kind <> 'shout-edited' and shout->>'message' is not null`,
      [EVENTS_TABLE, id, row.event_id, EVENTS_TABLE, message, id, row.event_id])
      // The replies to it, in the history, quote its new text.
      await trx.raw(`update ?? set shout = jsonb_set(shout, '{replyTo,excerpt}', to_jsonb(left(?::text, ${EXCERPT_LENGTH})))
        where (shout->'replyTo'->>'id')::bigint = ? and shout->'replyTo'->>'excerpt' is not null`, [EVENTS_TABLE, message, id])
      return recorded(row)
    },

    /**
     * The deleted shout, or undefined when there was none with that id. In the same
     * statement its text leaves the stream's history: the earlier events that carried it
     * are deleted, and the `shout-deleted` event written carries the id alone. (A client
     * replaying the history from its start sees the deletion of a shout it never saw.)
     */
    async delete (id: number, trx: Transaction): Promise<Recorded | undefined> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(`
        with s as (delete from ?? where id = ? returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot),
        forgotten as (delete from ?? where (shout->>'id')::bigint in (select id from s)),
        ${BLANK_QUOTES},
        e as (insert into ?? (kind, shout, created_at) select 'shout-deleted', jsonb_build_object('id', id, 'room', room), ? from s returning id)
        select s.id, s.message, s.username, s.date, s.room, ${replyToOf('s.reply_to_id')} as "replyTo", e.id as event_id from s cross join e`,
      [SHOUTS_TABLE, id, EVENTS_TABLE, EVENTS_TABLE, EVENTS_TABLE, Date.now()])
      const row = result.rows[0]
      return row === undefined ? undefined : recorded(row)
    }
  }
}
