import { Api, ServiceUnavailable, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'

/**
 * For load balancers and monitors: is this process able to reach its database, and is
 * it staying? From the stop signal until it exits it answers 503 with `stopping: true`
 * (while still serving every request that reaches it), so a balancer sends no more.
 */
export class Health extends Api<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/health'
  readonly schema = {}
  override readonly availableBeforeSetup = true
  // 503 SERVICE_UNAVAILABLE carries `database` ("up" or "down") and, while stopping, `stopping: true`.
  override readonly answers = { ok: okAnswer({ database: Type.Literal('up') }, { database: 'up' }) }

  async handle ({ ctx }: PublicCall<object, HostContext>): Promise<Successful> {
    let database: 'up' | 'down' = 'up'
    try {
      await ctx.db.raw('select 1')
    } catch {
      database = 'down'
    }
    if (ctx.addons.stopping) throw new ServiceUnavailable({ database, stopping: true })
    if (database === 'down') throw new ServiceUnavailable({ database })
    return new Successful({ database })
  }
}
