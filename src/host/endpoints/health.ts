import { Api, ServiceUnavailable, Successful } from '../../sdk/index.js'
import type { AvailableBeforeSetup } from '../http/endpoint-route.js'
import type { Platform } from '../platform.js'

/** For load balancers and monitors: is this process able to reach its database? */
export class Health extends Api implements AvailableBeforeSetup {
  readonly method = 'GET'
  readonly path = '/api/health'
  readonly schema = {}
  readonly availableBeforeSetup = true

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (): Promise<Successful> {
    try {
      await this.platform.db.raw('select 1')
    } catch {
      throw new ServiceUnavailable({ database: 'down' })
    }
    return new Successful({ database: 'up' })
  }
}
