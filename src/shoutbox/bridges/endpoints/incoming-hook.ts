import { Api, BadRequest, NotFound, Successful, TooManyRequests, Type, okAnswer, type PublicCall } from '../../../sdk/index.js'
import { MessageTooLong, RoomArchived, WatchedWord } from '../../errors.js'
import { postThroughHook } from '../incoming.js'

const HookUrlSchema = {
  params: Type.Object({
    id: Type.String({ description: "the hook's id, as in its URL" }),
    secret: Type.String({ description: "the hook's secret, as in its URL (shown once, when the hook was added)" })
  }),
  body: Type.Object({
    text: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Slack's shape: the message (Slack's escapes `&amp;` `&lt;` `&gt;` and `<url|label>` links are read back to text)" })),
    content: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Discord's shape: the message, as it is" })),
    username: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "who said it, in the tool that sends it (at most 80 characters); the hook's name when absent" }))
  }, { description: 'a Slack-shaped `{text, username?}` or a Discord-shaped `{content, username?}` body; other fields (attachments, embeds, avatars) are ignored' })
}

/**
 * POST /hooks/incoming/:id/:secret (declared as `/api/hooks/…`; the host takes both) — another
 * tool posts into the hook's room, as the hook (see `postThroughHook`). Answers the shout's
 * id and room; a wrong secret, an unknown id and a removed hook are all 404 NOT_FOUND.
 */
export class PostThroughIncomingHook extends Api<typeof HookUrlSchema> {
  readonly method = 'POST'
  readonly path = '/api/hooks/incoming/:id/:secret'
  readonly schema = HookUrlSchema
  override readonly answers = {
    ok: okAnswer({
      shout: Type.Object({
        id: Type.Integer(),
        room: Type.String({ description: "the room's slug: the hook's own" }),
        held: Type.Optional(Type.Literal(true, { description: 'a watched word holds it for review' }))
      }, { additionalProperties: false })
    }, { shout: { id: 812, room: 'general' } }),
    errors: [BadRequest, NotFound, RoomArchived, MessageTooLong, WatchedWord, TooManyRequests]
  }

  async handle (call: PublicCall<typeof HookUrlSchema>): Promise<Successful> {
    return new Successful({ shout: await postThroughHook(call.ctx, call.params.id, call.params.secret, call.body) })
  }
}
