import { Api, Successful, okAnswer, type PublicCall } from '../../sdk/index.js'
import { DEFAULT_REACTIONS, SettingsSchema } from '../schemas.js'
import { ShoutboxSettings } from '../settings.js'

const { maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute, reactions } = SettingsSchema.properties

/**
 * GET /api/shoutbox/rules — public: what a composer needs to help before it sends (the
 * longest message, how long a shout stays editable, the flood limits) and the emoji a
 * reader may react with, in the order they are offered. The server
 * checks every one of them again; these are for saying so in time.
 */
export class PostingRules extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/rules'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute, reactions },
      { maxMessageLength: 500, editWindowSeconds: 300, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, reactions: [...DEFAULT_REACTIONS] })
  }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    const { maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute, reactions } = await ShoutboxSettings.of(ctx).current()
    return new Successful({ maxMessageLength, editWindowSeconds, minSecondsBetweenShouts, maxShoutsPerMinute, reactions })
  }
}
