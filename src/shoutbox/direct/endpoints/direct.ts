import { IdParamsSchema, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, Type, okAnswer, type SignedInCall } from '../../../sdk/index.js'
import { archivePage } from '../../archive-page.js'
import { DuplicateShout, MessageTooLong, WatchedWord } from '../../errors.js'
import { MarkLimits, readMarkersRepository, UNREAD_COUNTED } from '../../read-markers.js'
import { Rooms } from '../../rooms.js'
import { FullShoutSchema, NewestShoutsSchema, NextPageSchema, PostBodySchema, ROOM_SHOUT_EXAMPLE } from '../../schemas.js'
import { ACCEPT_CHOICES, conversationsRepository } from '../conversations-repository.js'
import { conversationsOf, writeDirect } from '../conversations.js'

/*
 * Direct messages: conversations of two members, read by those two alone — every
 * permission of staff's included, and no API token (each endpoint here is closed to tokens).
 */

const LastSchema = Type.Union([Type.Object({
  id: Type.Integer(), username: Type.String(), message: Type.String(), date: Type.Integer()
}, { additionalProperties: false }), Type.Null()], { description: 'the newest message; null when none is left' })

const ConversationSchema = Type.Object({
  id: Type.Integer(),
  with: Type.Object({ username: Type.String({ description: 'the other member; `deleted user` once erased' }) }, { additionalProperties: false }),
  last: LastSchema,
  unread: Type.Integer({ minimum: 0, maximum: UNREAD_COUNTED, description: `the other member's messages newer than the caller's marker, counted up to ${UNREAD_COUNTED}` })
}, { additionalProperties: false })

const DIRECT_SHOUT_EXAMPLE = { ...ROOM_SHOUT_EXAMPLE, room: '~7' }

/** GET /api/shoutbox/direct — the caller's conversations, the most recently active first (at most 100), with unread counts. */
export class ListConversations extends LoggedInApi {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/direct'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ conversations: Type.Array(ConversationSchema) }, {
      conversations: [{ id: 7, with: { username: 'ayse' }, last: { id: 42, username: 'ayse', message: 'See you at eight', date: 1795000000000 }, unread: 1 }]
    })
  }

  async handle ({ ctx, viewer }: SignedInCall): Promise<Successful> {
    return new Successful({ conversations: await conversationsOf(ctx, viewer) })
  }
}

const WriteSchema = {
  params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) }),
  body: PostBodySchema
}

/**
 * POST /api/shoutbox/direct/:username {message, replyTo?} — writes to a member, in the
 * conversation of the two (started by this message when there is none). 403
 * NO_PERMISSION, the same answer whatever the reason: no such member, oneself, either
 * ignores the other, they accept no direct messages, the writer is muted, or direct
 * messages are off. At most 10 new conversations an hour (429); flood control and watched words apply.
 */
export class WriteDirect extends LoggedInApi<typeof WriteSchema> {
  readonly method = 'POST'
  readonly path = '/api/shoutbox/direct/:username'
  readonly schema = WriteSchema
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ conversation: Type.Integer(), shout: FullShoutSchema }, { conversation: 7, shout: DIRECT_SHOUT_EXAMPLE }, 'The conversation and the message as stored'),
    errors: [NoPermission, MessageTooLong, WatchedWord, DuplicateShout, TooManyRequests]
  }

  async handle ({ ctx, params, body, viewer }: SignedInCall<typeof WriteSchema>): Promise<Successful> {
    return new Successful({ ...await writeDirect(ctx, viewer, params.username, body.message, body.replyTo ?? null) })
  }
}

const PageSchema = {
  params: IdParamsSchema,
  querystring: Type.Object({
    before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 })
  })
}

/** GET /api/shoutbox/direct/:id/shouts?before=&limit= — a conversation's messages, newest first, a page at a time; 404 for one the caller is not in, exactly as for none. */
export class ConversationShouts extends LoggedInApi<typeof PageSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/direct/:id/shouts'
  readonly schema = PageSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({ shouts: NewestShoutsSchema, next: NextPageSchema }, { shouts: [DIRECT_SHOUT_EXAMPLE], next: null }), errors: [NotFound] }

  async handle ({ ctx, params, query, ip, user, viewer }: SignedInCall<typeof PageSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableConversation(Number(params.id), viewer)
    return new Successful({ ...await archivePage(ctx, room, { before: query.before, limit: query.limit, ignored: 'show' }, ip, user) })
  }
}

const MarkSchema = {
  params: IdParamsSchema,
  body: Type.Object({ lastReadId: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) })
}

/** PUT /api/shoutbox/direct/:id/read {lastReadId} — the caller has read the conversation up to that message (forward only); 404 as for its messages. */
export class MarkConversationRead extends LoggedInApi<typeof MarkSchema> {
  readonly method = 'PUT'
  readonly path = '/api/shoutbox/direct/:id/read'
  readonly schema = MarkSchema
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ lastReadId: Type.Integer({ minimum: 0 }) }, { lastReadId: 42 }, 'The marker as it is now'),
    errors: [NotFound, TooManyRequests]
  }

  async handle ({ ctx, params, body, user, viewer }: SignedInCall<typeof MarkSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableConversation(Number(params.id), viewer)
    MarkLimits.of(ctx).admit(user.id)
    return new Successful({ lastReadId: await readMarkersRepository(ctx.db).markRead(user.id, room.id, body.lastReadId) })
  }
}

const AcceptSchema = Type.Unsafe<typeof ACCEPT_CHOICES[number]>({ type: 'string', enum: [...ACCEPT_CHOICES], description: 'who may write to the caller: everyone, or nobody' })
const PREFERENCE_ANSWER = okAnswer({ acceptDirectMessages: AcceptSchema }, { acceptDirectMessages: 'everyone' }, "The caller's choice now")

/** GET /api/shoutbox/direct/preferences — who may write to the caller (`everyone` unless they changed it). */
export class DirectPreference extends LoggedInApi {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/direct/preferences'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = { ok: PREFERENCE_ANSWER }

  async handle ({ ctx, user }: SignedInCall): Promise<Successful> {
    return new Successful({ acceptDirectMessages: await conversationsRepository(ctx.db).accepts(user.id) })
  }
}

const ChangePreferenceSchema = { body: Type.Object({ acceptDirectMessages: AcceptSchema }) }

/** PUT /api/shoutbox/direct/preferences {acceptDirectMessages} — `nobody`: no one may write to the caller, in a conversation old or new. */
export class ChangeDirectPreference extends LoggedInApi<typeof ChangePreferenceSchema> {
  readonly method = 'PUT'
  readonly path = '/api/shoutbox/direct/preferences'
  readonly schema = ChangePreferenceSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: PREFERENCE_ANSWER }

  async handle ({ ctx, user, body }: SignedInCall<typeof ChangePreferenceSchema>): Promise<Successful> {
    return new Successful({ acceptDirectMessages: await conversationsRepository(ctx.db).setAccepts(user.id, body.acceptDirectMessages) })
  }
}
