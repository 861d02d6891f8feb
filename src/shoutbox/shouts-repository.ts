import { BadRequest, prepared, type Database, type SqlPart, type Transaction } from '../sdk/index.js'
import { GENERAL_ROOM_ID, type Room } from './rooms.js'
import { EXCERPT_LENGTH } from './excerpt.js'
import type { RoomShout, Shout, ShoutPicture } from './schemas.js'
import { MAX_SEARCH_WORDS, quoteLexeme, simplifySearch, type Search } from './search-query.js'
import { nextTurn } from './searches.js'
import { EVENTS_TABLE, PINS_TABLE, ROOMS_TABLE, SHOUTS_TABLE } from './tables.js'
import { uploadsOf } from './pictures/attachments.js'

const COLUMNS = ['id', 'message', 'username', 'date'] as const

/**
 * What a shout off the board is (`state`: held, or hidden by reports): it stays in the
 * table, with its id, reactions and replies, and every reader's path leaves it out.
 */
export type OffBoardState = 'held' | 'hidden'

/** The slug of the room of the shout whose `room_id` is `column`, as SQL (a room's slug never changes). */
const slugOf = (column: string): string => `(select slug from ${ROOMS_TABLE} where ${ROOMS_TABLE}.id = ${column})`

/**
 * What the shout whose `reply_to_id` is `column` answers, as SQL json: the original's id,
 * author and first words (PostgreSQL's `left` counts code points), or, once the original
 * is deleted, its id and `deleted`; null for a shout that answers none.
 */
export const replyToOf = (column: string): string => `case when ${column} is null then null else coalesce(
  (select json_build_object('id', original.id, 'username', original.username, 'excerpt', left(original.message, ${EXCERPT_LENGTH})) from ${SHOUTS_TABLE} as original where original.id = ${column} and original.state is null),
  json_build_object('id', ${column}, 'deleted', true)) end`

/** A shout as webhooks tell of it (`shout.created`, `shout.edited`), from a row `s` of the shouts written. */
const WEBHOOK_SHOUT = "jsonb_build_object('id', s.id, 'room', s.room, 'username', s.username, 'message', s.message, 'date', s.date, 'replyTo', s.reply_to_id) || case when s.via is null then '{}'::jsonb else jsonb_build_object('via', s.via) end"

/** What a shout's webhook deliveries are about: deleting the shout takes its text out of those still waiting. */
export const shoutSubject = (id: number): string => `shout:${id}`

/**
 * `{"bot": true}` for a bot's shout (the row `row`), with `via` (the incoming hook's name)
 * for one that came in through a hook, `{"guest": true}` for a guest's, else nothing: a
 * shout's json carries `bot` only when it is one, `via` only when it came through a hook,
 * `guest` only when a guest wrote it.
 */
export const botOf = (row: string): string => `case when ${row}.via is not null then jsonb_build_object('bot', true, 'via', ${row}.via) when ${row}.bot then '{"bot":true}'::jsonb when ${row}.guest then '{"guest":true}'::jsonb else '{}'::jsonb end`

/** `{"edited": <ms>}` for a shout (the row `row`) whose text was changed, else nothing: a shout's json carries `edited` only then. */
export const editedOf = (row: string): string => `case when ${row}.edited_at is null then '{}'::jsonb else jsonb_build_object('edited', ${row}.edited_at) end`

/** The json of a stream event's shout, from the row `s` (its fields, its room's slug as `room`, its `reply_to_id`, `bot`, `edited_at`). */
const EVENT_SHOUT = `(jsonb_build_object('id', s.id, 'message', s.message, 'username', s.username, 'date', s.date, 'room', s.room, 'replyTo', ${replyToOf('s.reply_to_id')}) || ${botOf('s')} || ${editedOf('s')} || ${uploadsOf('s')})`

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

/**
 * A shout to store: `authorId` is the user's id, kept to know whose shout it is (never
 * answered; null for one that came in through an incoming hook); `roomId` its room;
 * `replyToId` the shout it answers.
 */
export interface NewShout extends Omit<Shout, 'id'> {
  readonly authorId: number | null
  /** Posted by a bot account, or through an incoming hook. */
  readonly bot: boolean
  /** The incoming hook's name, for a shout that came in through one. */
  readonly via?: string
  /** Posted by a guest (no account: `authorId` null), from the address `guestAddress` stands for (its HMAC of the day). */
  readonly guest?: true
  readonly guestAddress?: string
  readonly roomId: number
  readonly replyToId: number | null
  /** Its pictures, as it carries them; null for none. */
  readonly uploads?: ShoutPicture[] | null
}

interface RecordedRow extends Omit<RoomShout, 'via' | 'guest' | 'uploads'> {
  readonly event_id: number
  /** Only where the statement returns it (an edit's). */
  readonly edited_at?: number | string | null
  /** Only where the statement returns it: the incoming hook a shout came in through. */
  readonly via?: string | null
  /** Only where the statement returns it: a guest's shout says so. */
  readonly guest?: boolean
  /** Only where the statement returns it; null for a shout without pictures. */
  readonly uploads?: ShoutPicture[] | null
}

const recorded = ({ event_id: eventId, edited_at: editedAt, via, guest, uploads, ...row }: RecordedRow): Recorded => ({
  shout: {
    ...row,
    ...(typeof via === 'string' ? { bot: true as const, via } : {}),
    ...(guest === true ? { guest: true as const } : {}),
    ...(editedAt === undefined || editedAt === null ? {} : { edited: Number(editedAt) }),
    ...(uploads === undefined || uploads === null ? {} : { uploads })
  },
  eventId
})

/** The ids a search reads first when the search index cannot narrow it (see `search`). */
const SEARCH_FIRST_RANGE = 1_000
/** A search begins no range it expects to end after this long; its page then says where it stopped. */
const SEARCH_BUDGET_MS = 80
/** A range that took less than this was cheap: the next is four times wider. */
const CHEAP_RANGE_MS = 10
/** The newest shouts of the room that tell a rare word from a common one. */
const SEARCH_SAMPLE = 1_000
/** The most shouts the search index may hand one search; a search expected to find more reads ranges. */
const SEARCH_CANDIDATES = 2_000
/** On PostgreSQL, a search's read of the search index is stopped after this long (the embedded database keeps no time). */
const SEARCH_STATEMENT_MS = 1_000

/**
 * Matches the words `?` (a tsquery) by reading each row's text: never through the search
 * index, whatever PostgreSQL estimates. The function behind `@@`, called by name, is not
 * an operator the planner can match to an index.
 */
const MATCHES_BY_ROW = "ts_match_vq(to_tsvector('simple', message), ?::tsquery)"

export interface ArchiveQuery {
  /** The room whose shouts are read. */
  readonly room: Pick<Room, 'id' | 'slug'>
  /** Only shouts with a smaller id. */
  readonly before?: number | undefined
  readonly limit: number
  /** Words to find, as a tsquery `simplifySearch` made (never the words a client sent), matched row by row. */
  readonly tsquery?: string | undefined
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
    with s as (? returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot, via, guest, edited_at, uploads),
    e as (insert into ?? (kind, shout, created_at)
          select ?, ${EVENT_SHOUT}, ? from s
          order by s.id
          returning id, (shout->>'id')::bigint as shout_id, shout->'replyTo' as reply_to)
    select s.id, s.message, s.username, s.date, s.room, e.reply_to as "replyTo", s.edited_at, s.via, s.guest, s.uploads, e.id as event_id from s join e on e.shout_id = s.id order by s.id`,
  [change, EVENTS_TABLE, kind, Date.now()])

  /** The `replyTo` of a shout read from the shouts table. */
  const REPLY_TO = db.raw(`${replyToOf(`${SHOUTS_TABLE}.reply_to_id`)} as "replyTo"`)

  return {
    /**
     * The seed's list: the default room's shouts, newest first (the store's order); `limit`
     * null → all of them; `before` → only those with a smaller id. The cut is made in SQL.
     */
    listQuery (limit: number | null, before?: number) {
      const query = db(SHOUTS_TABLE).select<Shout[]>(...COLUMNS).where('room_id', GENERAL_ROOM_ID).whereNull('state').orderBy('id', 'desc')
      if (before !== undefined) query.where('id', '<', before)
      return limit === null ? query : query.limit(limit)
    },

    async list (limit: number | null, before?: number): Promise<Shout[]> {
      return this.listQuery(limit, before)
    },

    /**
     * Newest first, by id: a walk of the primary key backwards from `before`, each row's
     * text matched against `tsquery` when given (a search bounds the walk by a range).
     */
    archiveQuery ({ room, before, limit, tsquery, excludeAuthors = [] }: ArchiveQuery) {
      const query = db(SHOUTS_TABLE).select<RoomShout[]>(...COLUMNS, db.raw('?::text as room', [room.slug]), REPLY_TO)
        .where('room_id', room.id).whereNull('state').orderBy('id', 'desc').limit(limit)
      if (before !== undefined) query.where('id', '<', before)
      // Shouts stored before authors were kept (no author_id) are nobody's to ignore.
      if (excludeAuthors.length > 0) query.where(inner => inner.whereNull('author_id').orWhereNotIn('author_id', [...excludeAuthors]))
      if (tsquery !== undefined) query.whereRaw(MATCHES_BY_ROW, [tsquery])
      return query
    },

    async archive (query: ArchiveQuery): Promise<RoomShout[]> {
      return this.archiveQuery(query)
    },

    /** The words `q` (web-search syntax: "a phrase", -not, or) as a search runs them (see search-query.ts); never read as SQL or tsquery syntax. */
    async parseSearch (q: string): Promise<Search> {
      const { rows: [parsed] } = await db.raw<{ rows: Array<{ words: string }> }>("select websearch_to_tsquery('simple', ?)::text as words", [q])
      const words = parsed?.words ?? ''
      const search = simplifySearch(words)
      if (search !== undefined && search.kind === 'query' && search.size > MAX_SEARCH_WORDS) {
        throw new BadRequest({ bodyValidationError: `querystring/q must not hold more than ${MAX_SEARCH_WORDS} words` })
      }
      // Text this module cannot read is searched as it is, by ranges: slower, still bounded.
      return search ?? { kind: 'query', tsquery: words, words: [], size: 0, required: null }
    },

    /**
     * Up to `limit` shouts with the words `q`, newest first, below `before`; and where the
     * search stopped (`searchedTo`: the shouts from that id down were not searched), or
     * null when it went to the first shout.
     *
     * Its cost is bounded whatever the words, because it never lets PostgreSQL's estimate
     * choose the plan (with `the` forty times, an estimate of one row read the index entry
     * of a word every shout holds once per word: seconds). The words are simplified first
     * (`parseSearch`). Then the newest SEARCH_SAMPLE shouts say how common each word the
     * matches must hold is. When a rare one (or one per alternative of an `or`) is expected
     * in at most `candidates` shouts, the search index is read for it alone, and at most
     * that many candidates are matched against all the words: the whole board in one
     * query. Otherwise (common words, or only `-word`) the search reads ranges of ids,
     * newest first, matching each row's text: a range's cost is bounded by its size
     * (common words fill a page after a few rows), cheap ranges grow fourfold, and a range
     * that would end past `budgetMs` (by what the last one cost) is not begun; the page
     * ends with what was found and the next page searches on from there.
     */
    async search ({ room, before, limit, q, excludeAuthors }: Omit<ArchiveQuery, 'tsquery'> & { q: string },
      { firstRange = SEARCH_FIRST_RANGE, budgetMs = SEARCH_BUDGET_MS, candidates = SEARCH_CANDIDATES } = {}): Promise<{ shouts: RoomShout[], searchedTo: number | null }> {
      const started = Date.now()
      const search = await this.parseSearch(q)
      if (search.kind === 'none') return { shouts: [], searchedTo: null }
      if (search.kind === 'all') return { shouts: await this.archive({ room, before, limit, excludeAuthors }), searchedTo: null }
      const { tsquery } = search
      let top = before ?? (Number((await db(SHOUTS_TABLE).where('room_id', room.id).max<{ max: number | null }>('id as max').first())?.max ?? 0) + 1)
      if (search.required !== null) {
        await nextTurn()
        const leads = await this.rareWords(room, top, search.required, candidates)
        await nextTurn()
        const ids = leads === undefined ? undefined : await this.candidates(room, top, leads, candidates)
        if (ids !== undefined) {
          await nextTurn()
          const shouts = ids.length === 0 ? [] : await this.archiveQuery({ room, before: top, limit, tsquery, excludeAuthors }).whereRaw('id = any(?::bigint[])', [ids])
          return { shouts, searchedTo: null }
        }
      }
      const shouts: RoomShout[] = []
      let range = firstRange
      while (shouts.length < limit && top > 1) {
        const bottom = Math.max(1, top - range)
        await nextTurn()
        const began = Date.now()
        shouts.push(...await this.archiveQuery({ room, before: top, limit: limit - shouts.length, tsquery, excludeAuthors }).where('id', '>=', bottom))
        top = bottom
        const cost = Date.now() - began
        const cheap = cost < CHEAP_RANGE_MS
        if (cheap) range *= 4
        if (Date.now() - started + (cheap ? 4 : 1) * cost >= budgetMs) break
      }
      return { shouts, searchedTo: shouts.length < limit && top > 1 ? top : null }
    },

    /**
     * For each alternative of `required` (the words its matches must hold), the word the
     * newest SEARCH_SAMPLE shouts of `room` below `top` hold least, as a tsquery `a | b`;
     * undefined when those words are expected in more than `most` shouts below `top`.
     */
    async rareWords (room: Pick<Room, 'id'>, top: number, required: ReadonlyArray<readonly string[]>, most: number): Promise<string | undefined> {
      const words = [...new Set(required.flat())]
      const { rows: [counted] } = await db.raw<{ rows: Array<Record<string, number>> }>(`
        select count(*)::int as sampled, ${words.map((_, i) => `count(*) filter (where words @@ ?::tsquery)::int as "${i}"`).join(', ')}
        from (select to_tsvector('simple', message) as words from ?? where room_id = ? and id < ? order by id desc limit ?) as newest`,
      [...words.map(quoteLexeme), SHOUTS_TABLE, room.id, top, SEARCH_SAMPLE])
      const sampled = counted?.sampled ?? 0
      if (sampled === 0) return undefined
      const inSample = (word: string): number => counted?.[String(words.indexOf(word))] ?? 0
      // The rarest word of each alternative; of two as rare, the longer.
      const leads = required.map(alternative => [...alternative].sort((a, b) => inSample(a) - inSample(b) || b.length - a.length)[0]!)
      const held = leads.reduce((sum, word) => sum + inSample(word), 0)
      // Ids are shared by the rooms: `top` is at least the shouts below it.
      const below = sampled < SEARCH_SAMPLE ? sampled : top
      return held / sampled * below > most ? undefined : [...new Set(leads)].map(quoteLexeme).join(' | ')
    },

    /**
     * The ids of `room`'s shouts below `top` that hold `leads` (a tsquery of words, no
     * negation), read from the search index alone; undefined when there are more than
     * `most` (the words were commoner than the sample said).
     */
    async candidates (room: Pick<Room, 'id'>, top: number, leads: string, most: number): Promise<number[] | undefined> {
      const ids = await this.byIndexOnly(async trx => (await this.candidatesQuery(trx, room, top, leads, most)).rows.map(row => row.id))
      return ids.length > most ? undefined : ids
    },

    /**
     * The statement of `candidates`, to run in `byIndexOnly`: the search index is then the
     * only way in (the room and the range are not indexable, `+ 0`). The index entries of
     * the leads are read whole; the table's rows stop at `most` + 1.
     */
    candidatesQuery (trx: Transaction, room: Pick<Room, 'id'>, top: number, leads: string, most: number) {
      return trx.raw<{ rows: Array<{ id: number }> }>("select id from ?? where to_tsvector('simple', message) @@ ?::tsquery and room_id + 0 = ? and id + 0 < ? limit ?",
        [SHOUTS_TABLE, leads, room.id, top, most + 1])
    },

    /**
     * Runs `work` in a transaction whose plans never scan the table nor walk an index (only
     * bitmaps of an index remain) nor start parallel workers (a search takes one backend's
     * share of the machine), with a time limit on PostgreSQL (SEARCH_STATEMENT_MS).
     */
    async byIndexOnly<T> (work: (trx: Transaction) => Promise<T>): Promise<T> {
      return db.transaction(async trx => {
        await trx.raw(`select set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true),
          set_config('max_parallel_workers_per_gather', '0', true), set_config('statement_timeout', ?, true)`, [String(SEARCH_STATEMENT_MS)])
        return work(trx)
      })
    },

    /**
     * Those of `ids` that a bot account posted, those that came in through an incoming hook
     * (its name, by id), those a guest posted, those whose text was changed (when, last),
     * and those with pictures (which). One query.
     */
    async marks (ids: readonly number[]): Promise<{ bots: Set<number>, via: Map<number, string>, guests: Set<number>, edited: Map<number, number>, pictures: Map<number, ShoutPicture[]> }> {
      const bots = new Set<number>()
      const via = new Map<number, string>()
      const guests = new Set<number>()
      const edited = new Map<number, number>()
      const pictures = new Map<number, ShoutPicture[]>()
      if (ids.length === 0) return { bots, via, guests, edited, pictures }
      const rows: Array<{ id: number | string, bot: boolean, via: string | null, guest: boolean, edited_at: number | string | null, uploads: ShoutPicture[] | null }> = await db(SHOUTS_TABLE).whereIn('id', [...ids])
        .where(query => query.where('bot', true).orWhereNotNull('via').orWhere('guest', true).orWhereNotNull('edited_at').orWhereNotNull('uploads')).select('id', 'bot', 'via', 'guest', 'edited_at', 'uploads')
      for (const row of rows) {
        if (row.bot || row.via !== null) bots.add(Number(row.id))
        if (row.via !== null) via.set(Number(row.id), row.via)
        if (row.guest) guests.add(Number(row.id))
        if (row.edited_at !== null) edited.set(Number(row.id), Number(row.edited_at))
        if (row.uploads !== null) pictures.set(Number(row.id), row.uploads)
      }
      return { bots, via, guests, edited, pictures }
    },

    /** Whether account `authorId` has a shout on the board in one of `roomIds` (held and hidden shouts are off it): one index probe. */
    async wroteIn (authorId: number, roomIds: readonly number[]): Promise<boolean> {
      if (roomIds.length === 0) return false
      return (await db(SHOUTS_TABLE).where('author_id', authorId).whereIn('room_id', [...roomIds]).first('id')) !== undefined
    },

    /** The shout on the board with its room's slug, whatever its room (the caller decides who may see it). */
    async find (id: number): Promise<RoomShout | undefined> {
      const [shout] = await db(SHOUTS_TABLE).select<RoomShout[]>(...COLUMNS, db.raw(`${slugOf('room_id')} as room`), REPLY_TO).where('id', id).whereNull('state')
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
      const rows = await db(SHOUTS_TABLE).select('id').where('author_id', authorId).whereNull('state').limit(upTo)
      return rows.length
    },

    async moreThan (count: number): Promise<boolean> {
      const rows = await db(SHOUTS_TABLE).select('id').where('room_id', GENERAL_ROOM_ID).whereNull('state').orderBy('id').offset(count).limit(1)
      return rows.length > 0
    },

    /** How many of the shouts kept now were posted on each UTC day since `since` (ms), by the day's first millisecond. */
    async perDay (since: number): Promise<Map<number, number>> {
      const rows = await db(SHOUTS_TABLE)
        .where('date', '>=', since).whereNull('state')
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
      /** The webhooks' deliveries of the shouts written (`ctx.webhooks.insertion`), given their rows (a conversation's messages have none: see `isConversation`). */
      readonly hooked: (rows: SqlPart) => SqlPart
      readonly announce: (text: SqlPart) => SqlPart
      readonly maxNoticeBytes: number
    }): Promise<{ notice: string, sent: string | null }> {
      const result = await prepared(db.raw<{ rows: Array<{ notice: string, sent: string | null }> }>(`
        with s as (insert into ?? (message, username, date, author_id, room_id, reply_to_id, bot, via, guest, guest_address, uploads)
              select item->>'message', item->>'username', (item->>'date')::bigint, (item->>'authorId')::integer, (item->>'roomId')::integer, (item->>'replyToId')::bigint, (item->>'bot')::boolean, item->>'via',
                coalesce((item->>'guest')::boolean, false), item->>'guestAddress',
                case when jsonb_typeof(item->'uploads') = 'array' then item->'uploads' end
              from jsonb_array_elements(?::jsonb) with ordinality as given(item, position)
              order by position
              returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot, via, guest, edited_at, uploads),
        e as (insert into ?? (kind, shout, created_at)
              select 'shout-created', ${EVENT_SHOUT}, ? from s
              order by s.id
              returning id, (shout->>'id')::bigint as shout_id, shout->'replyTo' as reply_to),
        also as (?),
        hooked as (?),
        built as (select
              json_build_object('kind', 'shout-created', 'eventIds', json_agg(e.id order by e.id), 'events', json_agg(json_build_object(
                'id', e.id, 'kind', 'shout-created', 'shout', jsonb_build_object('id', s.id, 'message', s.message, 'username', s.username, 'date', s.date, 'room', s.room, 'replyTo', e.reply_to) || ${botOf('s')} || ${uploadsOf('s')}
              ) order by e.id))::text as notice,
              json_build_object('kind', 'shout-created', 'eventIds', json_agg(e.id order by e.id))::text as bare
            from s join e on e.shout_id = s.id),
        chosen as (select notice, case when octet_length(notice) > ? then bare end as shorter from built)
        select notice, shorter as sent, ? as announced from chosen`,
      [SHOUTS_TABLE, JSON.stringify(shouts), EVENTS_TABLE, Date.now(), parts.also, parts.hooked(db.raw(`select ${WEBHOOK_SHOUT} as data, 'shout:' || s.id as subject from s where s.room not like '~%'`)), parts.maxNoticeBytes, parts.announce(db.raw('coalesce(shorter, notice)'))]))
      const [row] = result.rows
      if (row === undefined) throw new Error('the publish statement answered no row')
      return row
    },

    /**
     * Who wrote the shout on the board, its text, when, whether a moderator edited or pinned
     * it, and whether it was held and approved; its row locked until `trx` ends (a pin
     * locks it too, so neither misses the other); undefined when there is none.
     */
    async authorOf (id: number, trx: Transaction): Promise<{ authorId: number | null, message: string, date: number, moderated: boolean, pinned: boolean, approved: boolean, roomId: number } | undefined> {
      const row = await trx(SHOUTS_TABLE).where({ id }).whereNull('state').forUpdate()
        .first<{ author_id: number | null, message: string, date: number, moderated: boolean, pinned: boolean, approved: boolean, room_id: number } | undefined>(
          'author_id', 'message', 'date', 'moderated', 'approved', 'room_id', trx.raw('exists (select 1 from ?? where shout_id = ??.id) as pinned', [PINS_TABLE, SHOUTS_TABLE]))
      return row === undefined
        ? undefined
        : { authorId: row.author_id, message: row.message, date: Number(row.date), moderated: row.moderated, pinned: row.pinned, approved: row.approved, roomId: row.room_id }
    },

    /**
     * The shout on the board, its room's id and its author's id (null for shouts stored
     * before authors were kept), and whether staff vouched for it; with `trx`, its row locked
     * until `trx` ends.
     */
    async findWithAuthor (id: number, trx: Database = db): Promise<(RoomShout & { authorId: number | null, roomId: number, vouched: boolean }) | undefined> {
      const query = trx(SHOUTS_TABLE).where({ id }).whereNull('state')
        .first<(RoomShout & { author_id: number | null, room_id: number, vouched: boolean }) | undefined>(...COLUMNS, 'author_id', 'room_id', 'vouched', db.raw(`${slugOf('room_id')} as room`), REPLY_TO)
      const row = await (trx.isTransaction === true ? query.forUpdate() : query)
      if (row === undefined) return undefined
      const { author_id: authorId, room_id: roomId, ...shout } = row
      return { ...shout, id: Number(shout.id), date: Number(shout.date), authorId, roomId }
    },

    /**
     * The shout with its new text, or undefined when there was none with that id. The
     * earlier events that carried it carry the new text from now on: words edited out
     * cannot be read back by replaying the stream's history. `byModerator` marks the
     * shout as no longer its author's to edit; the author's own edit is new text, which no
     * moderator has vouched for yet. A shout off the board is not edited here.
     */
    async edit (id: number, message: string, byModerator: boolean, trx: Transaction): Promise<Recorded | undefined> {
      const result = await withEvents('shout-edited', trx.raw(`update ?? set message = ?, edited_at = ?${byModerator ? ', moderated = true' : ', vouched = false'} where id = ? and state is null`, [SHOUTS_TABLE, message, Date.now(), id]), trx)
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
        with s as (delete from ?? where id = ? and state is null returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot),
        forgotten as (delete from ?? where (shout->>'id')::bigint in (select id from s)),
        ${BLANK_QUOTES},
        e as (insert into ?? (kind, shout, created_at) select 'shout-deleted', jsonb_build_object('id', id, 'room', room), ? from s returning id)
        select s.id, s.message, s.username, s.date, s.room, ${replyToOf('s.reply_to_id')} as "replyTo", e.id as event_id from s cross join e`,
      [SHOUTS_TABLE, id, EVENTS_TABLE, EVENTS_TABLE, EVENTS_TABLE, Date.now()])
      const row = result.rows[0]
      return row === undefined ? undefined : recorded(row)
    },

    /**
     * Takes the shout off the board (`state`: held or hidden, for `why`), with `message` as
     * its new text when given; undefined when it is not on the board. Readers are told as
     * for a delete, in the same statement: its earlier events leave the stream's history,
     * the replies there quote it no more, and a `shout-deleted` event names it. The row, its
     * reactions and its replies stay, for a moderator to put it back.
     */
    async takeOff (id: number, state: OffBoardState, why: string, message: string | null, trx: Transaction): Promise<Recorded | undefined> {
      const result = await trx.raw<{ rows: RecordedRow[] }>(`
        with s as (update ?? set state = ?, why = ?, since = ?, message = coalesce(?, message) where id = ? and state is null
          returning id, message, username, date, ${slugOf('room_id')} as room, reply_to_id, bot),
        forgotten as (delete from ?? where (shout->>'id')::bigint in (select id from s)),
        ${BLANK_QUOTES},
        e as (insert into ?? (kind, shout, created_at) select 'shout-deleted', jsonb_build_object('id', id, 'room', room), ? from s returning id)
        select s.id, s.message, s.username, s.date, s.room, ${replyToOf('s.reply_to_id')} as "replyTo", e.id as event_id from s cross join e`,
      [SHOUTS_TABLE, state, why, Date.now(), message, id, EVENTS_TABLE, EVENTS_TABLE, EVENTS_TABLE, Date.now()])
      const row = result.rows[0]
      return row === undefined ? undefined : recorded(row)
    },

    /**
     * Puts a held or hidden shout (back) on the board, vouched for by staff (`approved`: it
     * was held), with its id, date, reactions and replies: a `shout-restored` event carries
     * it, and the replies in the stream's history quote it again. Undefined when it is not
     * off the board.
     */
    async restore (id: number, approved: boolean, trx: Transaction): Promise<Recorded | undefined> {
      const result = await withEvents('shout-restored', trx.raw(`update ?? set state = null, why = null, since = null, vouched = true, approved = approved or ?
        where id = ? and state is not null`, [SHOUTS_TABLE, approved, id]), trx)
      const row = result.rows[0]
      if (row === undefined) return undefined
      await trx.raw(`update ?? set shout = jsonb_set(shout, '{replyTo}', jsonb_build_object('id', ?::bigint, 'username', ?::text, 'excerpt', left(?::text, ${EXCERPT_LENGTH})))
        where (shout->'replyTo'->>'id')::bigint = ?`, [EVENTS_TABLE, id, row.username, row.message, id])
      return recorded(row)
    },

    /** Staff kept the shout on the board against its reports: reports no longer hide it. */
    async vouch (id: number, trx: Transaction): Promise<void> {
      await trx(SHOUTS_TABLE).where({ id }).update({ vouched: true })
    }
  }
}
