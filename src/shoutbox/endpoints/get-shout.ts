import { Api, IdParamsSchema, NotFound, Successful, type PublicCall } from '../../sdk/index.js'
import { shoutsRepository } from '../shouts-repository.js'

const ShoutIdParams = { params: IdParamsSchema }

/** GET /api/shoutbox/shouts/:id — public: one shout (its permalink), or 404 NOT_FOUND. */
export class GetShout extends Api<typeof ShoutIdParams> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/shouts/:id'
  readonly schema = ShoutIdParams

  async handle ({ ctx, params }: PublicCall<typeof ShoutIdParams>): Promise<Successful> {
    const shout = await shoutsRepository(ctx.db).find(Number(params.id))
    if (shout === undefined) throw new NotFound()
    return new Successful({ shout })
  }
}
