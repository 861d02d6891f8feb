import { Api, ServiceUnavailable, Successful, type PublicCall } from '../../sdk/index.js'

/** For load balancers and monitors: is this process able to reach its database? */
export class Health extends Api {
  readonly method = 'GET'
  readonly path = '/api/health'
  readonly schema = {}
  override readonly availableBeforeSetup = true

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    try {
      await ctx.db.raw('select 1')
    } catch {
      throw new ServiceUnavailable({ database: 'down' })
    }
    return new Successful({ database: 'up' })
  }
}
