import { Api, Successful, type PublicCall } from '../../sdk/index.js'
import { readSettings } from '../settings.js'
import { shoutsRepository } from '../shouts-repository.js'

/** GET /api/shoutbox/list — public: the shouts, newest first, at most `maxShouts` of them. */
export class ListShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/list'
  readonly schema = {}

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    const { maxShouts } = await readSettings(ctx)
    return new Successful({ shouts: await shoutsRepository(ctx.db).list(maxShouts) })
  }
}
