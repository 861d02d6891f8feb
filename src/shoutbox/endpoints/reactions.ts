import { BadRequest, IdParamsSchema, LoggedInApi, NoPermission, NotFound, Successful, TooManyRequests, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { Muted, RoomArchived } from '../errors.js'
import { Reactions } from '../reactions.js'
import { ReactionSchema } from '../schemas.js'

const ReactionParamsSchema = {
  params: Type.Object({
    ...IdParamsSchema.properties,
    /** One emoji, as the path spells it (percent-encoded); anything longer is no emoji of the set. */
    emoji: Type.String({ minLength: 1, maxLength: 32 })
  })
}

const ANSWER = okAnswer(
  { reactions: Type.Array(ReactionSchema, { description: "the shout's reactions now: nonzero only, in the set's order, `mine` for the caller" }) },
  { reactions: [{ emoji: '👍', count: 3, mine: true }, { emoji: '🎉', count: 1, mine: false }] },
  "The shout's reactions after the change")

const ERRORS = [BadRequest, NotFound, NoPermission, RoomArchived, Muted, TooManyRequests]

/**
 * PUT /api/shoutbox/shouts/:id/reactions/:emoji — a member reacts to a shout with one
 * emoji of the site's set (`reactions`; any other → 400). The shout must be in a room the
 * member may read (404 otherwise, as for none) and post in (403; 409 ROOM_ARCHIVED in an
 * archived room); a muted member may not (MUTED). Reacting twice with the same emoji is
 * one reaction. At most REACTIONS_PER_MINUTE changes a minute per member → 429. Everyone
 * reading the room hears the counts on the stream (`shout-reactions`, at most once a
 * second per shout).
 */
export class AddReaction extends LoggedInApi<typeof ReactionParamsSchema> {
  readonly method = 'PUT'
  readonly path = '/api/shoutbox/shouts/:id/reactions/:emoji'
  readonly schema = ReactionParamsSchema
  override readonly answers = { ok: ANSWER, errors: ERRORS }

  async handle ({ ctx, params, viewer }: SignedInCall<typeof ReactionParamsSchema>): Promise<Successful> {
    return new Successful({ reactions: await Reactions.of(ctx).react(viewer, Number(params.id), params.emoji, true) })
  }
}

/** DELETE /api/shoutbox/shouts/:id/reactions/:emoji — takes one's reaction back, under the same rules. */
export class RemoveReaction extends LoggedInApi<typeof ReactionParamsSchema> {
  readonly method = 'DELETE'
  readonly path = '/api/shoutbox/shouts/:id/reactions/:emoji'
  readonly schema = ReactionParamsSchema
  override readonly answers = { ok: ANSWER, errors: ERRORS }

  async handle ({ ctx, params, viewer }: SignedInCall<typeof ReactionParamsSchema>): Promise<Successful> {
    return new Successful({ reactions: await Reactions.of(ctx).react(viewer, Number(params.id), params.emoji, false) })
  }
}
