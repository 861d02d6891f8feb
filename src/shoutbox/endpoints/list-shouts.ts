import { Api, SerializedSuccessful, type PublicCall } from '../../sdk/index.js'
import { ShoutboxLive } from '../live.js'

/**
 * GET /api/shoutbox/list — public: the shouts, newest first, at most `maxShouts` of them.
 * Served from memory until a change is announced; `If-None-Match` gets a 304.
 */
export class ListShouts extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/list'
  readonly schema = {}

  async handle ({ ctx, reply }: PublicCall): Promise<SerializedSuccessful> {
    const { body, etag } = await ShoutboxLive.of(ctx).list()
    reply.header('cache-control', 'no-cache')
    return new SerializedSuccessful(body, etag)
  }
}
