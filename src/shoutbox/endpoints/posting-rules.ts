import { Api, Successful, okAnswer, type PublicCall } from '../../sdk/index.js'
import { SettingsSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'

const { maxShouts, maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute } = SettingsSchema.properties

/**
 * GET /api/shoutbox/rules — public: what a composer needs to help before it sends (the
 * longest message, how long a shout stays editable, the flood limits), and how many
 * shouts the list shows (`maxShouts`, null: all), which the widget loads and keeps. The
 * server checks every rule again; these are for saying so in time.
 */
export class PostingRules extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rules'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ maxShouts, maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute },
      { maxShouts: 50, maxMessageLength: 500, editWindowSeconds: 300, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10 })
  }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    const { maxShouts, maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute } = await ShoutboxSettings.of(ctx).current()
    return new Successful({ maxShouts, maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute })
  }
}
