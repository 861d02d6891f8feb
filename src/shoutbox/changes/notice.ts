import { checker, Type, type AddonContext, type SqlPart, type Transaction } from '../../sdk/index.js'
import { ReactionSchema, RoomShoutSchema } from '../schemas.js'
import { CHANGE_KIND_NAMES, CHANGE_KINDS, type ChangeKind, type MemberEventKind, type ShoutEvent } from './kinds.js'

/**
 * The cluster topic every change to the board is announced on, to every host process
 * (this one too). The kept answers and the stream follow it.
 */
export const CHANGED = 'changed'

export interface ChangeNotice {
  readonly kind: ChangeKind
  /** The stream events the change wrote, in order. */
  readonly eventIds: readonly number[]
  /**
   * The events themselves, when they fit in a notice: then no process reads them back
   * from the database to update its lists or feed its streams.
   */
  readonly events?: readonly ShoutEvent[]
  /** The member (a user id) whose own streams hear it: a kind that carries `member`. */
  readonly member?: number
}

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; the notice travels inside
 * the cluster's own envelope, escaped once more, so it must stay well below.
 */
export const MAX_NOTICE_BYTES = 3000

const kindsCarrying = (what: 'shout' | 'id' | 'reactions' | 'member'): ChangeKind[] => CHANGE_KIND_NAMES.filter(kind => CHANGE_KINDS[kind].carries === what)
const EventId = Type.Integer({ minimum: 1 })

const NoticeSchema = Type.Object({
  kind: Type.Union(CHANGE_KIND_NAMES.map(kind => Type.Literal(kind))),
  eventIds: Type.Array(EventId),
  events: Type.Optional(Type.Array(Type.Union([
    Type.Object({ id: EventId, kind: Type.Union(kindsCarrying('shout').map(kind => Type.Literal(kind))), shout: RoomShoutSchema }),
    Type.Object({ id: EventId, kind: Type.Union(kindsCarrying('id').map(kind => Type.Literal(kind))), shout: Type.Object({ id: Type.Integer(), room: Type.String() }, { additionalProperties: false }) }),
    Type.Object({
      id: EventId,
      kind: Type.Union(kindsCarrying('reactions').map(kind => Type.Literal(kind))),
      shout: Type.Object({ id: Type.Integer(), room: Type.String(), reactions: Type.Array(Type.Omit(ReactionSchema, ['mine'])) }, { additionalProperties: false })
    })
  ]))),
  member: Type.Optional(Type.Integer({ minimum: 1 }))
})
const isNoticeShaped = checker(NoticeSchema)

/** The last notice read, with its text: every subscriber of this process hears the same text in turn. */
let lastRead: { payload: string, notice: ChangeNotice | undefined } | undefined

/**
 * The notice a payload holds, checked; `undefined` for one that cannot be read or is not a
 * notice this process knows (a kind it has never heard of, from a newer process, or events
 * that are not the notice's), which every reader takes as "anything may have changed".
 * Each text is parsed once, however many parts of this process hear it.
 */
export function readNotice (payload: string): ChangeNotice | undefined {
  if (lastRead?.payload === payload) return lastRead.notice
  let notice: ChangeNotice | undefined
  try {
    const value: unknown = JSON.parse(payload)
    if (isNoticeShaped(value) && isConsistent(value as ChangeNotice)) notice = value as ChangeNotice
  } catch {
    notice = undefined
  }
  lastRead = { payload, notice }
  return notice
}

/** Its events are of its kind, and are the events it names. */
function isConsistent ({ kind, eventIds, events, member }: ChangeNotice): boolean {
  const { carries } = CHANGE_KINDS[kind]
  if (carries === 'member') return eventIds.length === 0 && events === undefined && member !== undefined
  if (member !== undefined) return false
  if (carries === 'nothing') return eventIds.length === 0 && events === undefined
  return events === undefined || (events.length === eventIds.length && events.every((event, i) => event.kind === kind && event.id === eventIds[i]))
}

/**
 * Announces a change of `kind` whose stream events are `events` (none for a change not on
 * the stream); every process hears it once `trx` commits (never if it rolls back). Events
 * too many for a notice are named by their ids, and read back from the history.
 */
export async function announceChange (ctx: AddonContext, kind: Exclude<ChangeKind, MemberEventKind>, events: readonly ShoutEvent[], trx: Transaction): Promise<void> {
  const eventIds = events.map(event => event.id)
  let payload = JSON.stringify(events.length === 0 ? { kind, eventIds } : { kind, eventIds, events })
  if (Buffer.byteLength(payload) > MAX_NOTICE_BYTES) payload = JSON.stringify({ kind, eventIds })
  await ctx.cluster.notify(CHANGED, payload, trx)
}

/** Announces a change of `kind` to `member`'s own streams, once `trx` commits. */
export async function announceToMember (ctx: AddonContext, kind: MemberEventKind, member: number, trx: Transaction): Promise<void> {
  await ctx.cluster.notify(CHANGED, JSON.stringify({ kind, eventIds: [], member }), trx)
}

/**
 * For a change announced by the statement that makes it (see `insertAnnounced`): the SQL
 * that sends the notice text `text`, an expression of that statement, when it commits…
 */
export function announcing (ctx: AddonContext): (text: SqlPart) => SqlPart {
  return text => ctx.cluster.notifying(CHANGED, text)
}

/** …and, once it has, this process hears the text it sent. */
export function announced (ctx: AddonContext, text: string): void {
  ctx.cluster.delivered(CHANGED, text)
}

/**
 * Runs `handler` for each change, from any process. A notice that cannot be read, or a
 * gap in the notices (the link was down), is `undefined`: anything may have changed.
 */
export function onChange (ctx: AddonContext, handler: (notice: ChangeNotice | undefined) => void): void {
  ctx.cluster.subscribe(CHANGED, payload => handler(readNotice(payload)))
  ctx.cluster.onResync(() => handler(undefined))
}
