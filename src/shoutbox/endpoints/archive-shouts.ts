import { Api, Successful, okAnswer, type PublicCall } from '../../sdk/index.js'
import { assertStorable } from '../message.js'
import { ArchiveSchema, NewestShoutsSchema, NextPageSchema, SHOUT_EXAMPLE } from '../schemas.js'
import { shoutsRepository } from '../shouts-repository.js'

/**
 * GET /api/shoutbox/archive?before=&limit=&q= — public: every shout ever kept, newest
 * first, a page at a time. The cursor is an id, so a walk page by page sees each shout
 * once even while new ones arrive (they are newer than the walk). `next` is the `before`
 * of the following page, or null after the last one.
 */
export class ArchiveShouts extends Api<typeof ArchiveSchema> {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/archive'
  readonly schema = ArchiveSchema
  override readonly answers = {
    ok: okAnswer({
      shouts: NewestShoutsSchema,
      next: NextPageSchema
    }, { shouts: [SHOUT_EXAMPLE], next: 42 })
  }

  async handle ({ ctx, query }: PublicCall<typeof ArchiveSchema>): Promise<Successful> {
    const { limit } = query
    const before = query.before === undefined ? undefined : Number(query.before)
    const q = query.q === undefined || query.q.trim() === '' ? undefined : query.q
    if (q !== undefined) assertStorable(q, 'querystring/q')
    // One more than the page: whether it exists decides `next`.
    const found = await shoutsRepository(ctx.db).archive({ before, limit: limit + 1, q })
    const shouts = found.slice(0, limit)
    return new Successful({ shouts, next: found.length > limit ? shouts.at(-1)!.id : null })
  }
}
