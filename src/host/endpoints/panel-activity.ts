import { PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { ActivityEntrySchema } from '../schemas.js'

const ActivitySchema = {
  querystring: Type.Object({
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    locale: Type.Optional(Type.String({ maxLength: 35 }))
  })
}

/** The panel's activity feed: newest first, 20 a page, each entry as a sentence in the reader's language, as much of it as the reader may see. */
export class ActivityFeed extends PanelApi<typeof ActivitySchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/logs/activity'
  readonly schema = ActivitySchema
  override readonly answers = {
    ok: okAnswer({
      logs: Type.Array(ActivityEntrySchema, { description: 'newest first, 20 a page' }),
      page: Type.Integer({ minimum: 1 }),
      totalPages: Type.Integer({ minimum: 1 })
    }, {
      logs: [{
        id: 7, type: 'CREATED_SHOUT', userId: 1, username: 'admin', addonId: 'shoutbox', details: { message: 'Hello' },
        createdAt: 1795000000000, text: 'admin shouted: Hello'
      }],
      page: 1,
      totalPages: 1
    })
  }

  async handle (call: SignedInCall<typeof ActivitySchema, HostContext>): Promise<Successful> {
    // Each addon says what this reader may see of its entries (a shout of a room they may not read).
    const readers = await call.ctx.addons.activityReaders(call.viewer)
    return new Successful(await call.ctx.activityFeed.page(call.query.page, call.locale, readers))
  }
}
