import { Api, NotFound, Successful, okAnswer, type PublicCall } from '../../sdk/index.js'
import { withReactions } from '../reactions.js'
import { Rooms } from '../rooms.js'
import { ROOM_SHOUT_EXAMPLE, FullShoutSchema, ShoutIdParamsSchema } from '../schemas.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * GET /api/shoutbox/shouts/:id — public: one shout (its permalink) with its room, or 404
 * NOT_FOUND — also for a shout of a room the caller may not read, exactly as for none.
 */
export class GetShout extends Api<typeof ShoutIdParamsSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/shouts/:id'
  readonly schema = ShoutIdParamsSchema
  override readonly readsSession = true
  override readonly answers = { ok: okAnswer({ shout: FullShoutSchema }, { shout: ROOM_SHOUT_EXAMPLE }), errors: [NotFound] }

  async handle ({ ctx, params, user, viewer }: PublicCall<typeof ShoutIdParamsSchema>): Promise<Successful> {
    const shout = await shoutsRepository(ctx.db).find(Number(params.id))
    if (shout === undefined) throw new NotFound()
    await Rooms.of(ctx).readableBySlug(shout.room, viewer)
    const [answered] = await withReactions(ctx, [shout], user)
    return new Successful({ shout: answered })
  }
}
