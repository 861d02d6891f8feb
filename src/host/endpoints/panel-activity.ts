import { PanelApi, Successful, Type, type SignedInCall } from '../../sdk/index.js'
import type { Platform } from '../platform.js'

const ActivitySchema = {
  querystring: Type.Object({
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    locale: Type.Optional(Type.String({ maxLength: 35 }))
  })
}

/** The panel's activity feed: newest first, 20 a page, each entry as a sentence in the reader's language. */
export class ActivityFeed extends PanelApi<typeof ActivitySchema> {
  readonly method = 'GET'
  readonly path = '/api/panel/logs/activity'
  readonly schema = ActivitySchema

  constructor (private readonly platform: Platform) {
    super()
  }

  async handle (call: SignedInCall<typeof ActivitySchema>): Promise<Successful> {
    return new Successful(await this.platform.activity.page(call.query.page, call.locale))
  }
}
