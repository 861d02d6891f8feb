import { Api, Successful, okAnswer, type PublicCall } from '../../sdk/index.js'
import { SettingsSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'

const { maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute } = SettingsSchema.properties

/**
 * GET /api/shoutbox/rules — public: what a composer needs to help before it sends (the
 * longest message, how long a shout stays editable, the flood limits). The server
 * checks every one of them again; these are for saying so in time.
 */
export class PostingRules extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rules'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute },
      { maxMessageLength: 500, editWindowSeconds: 300, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10 })
  }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    const { maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute } = await ShoutboxSettings.of(ctx).current()
    return new Successful({ maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute })
  }
}
