import { Api, NotFound, Successful, okAnswer, type PublicCall } from '../../sdk/index.js'
import { SHOUT_EXAMPLE, ShoutIdParamsSchema, ShoutSchema } from '../schemas.js'
import { shoutsRepository } from '../shouts-repository.js'

/** GET /api/shoutbox/shouts/:id — public: one shout (its permalink), or 404 NOT_FOUND. */
export class GetShout extends Api<typeof ShoutIdParamsSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/shouts/:id'
  readonly schema = ShoutIdParamsSchema
  override readonly answers = { ok: okAnswer({ shout: ShoutSchema }, { shout: SHOUT_EXAMPLE }), errors: [NotFound] }

  async handle ({ ctx, params }: PublicCall<typeof ShoutIdParamsSchema>): Promise<Successful> {
    const shout = await shoutsRepository(ctx.db).find(Number(params.id))
    if (shout === undefined) throw new NotFound()
    return new Successful({ shout })
  }
}
