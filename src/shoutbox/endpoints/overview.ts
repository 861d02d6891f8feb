import { NoPermission, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { mutesRepository } from '../mutes-repository.js'
import { shoutsRepository } from '../shouts-repository.js'
import { StreamHub } from '../stream-hub.js'
import { watchedWordsRepository } from '../word-list.js'
import { queueSize } from './panel-review.js'

const DAY_MS = 86_400_000
/** The panel's overview shows this many days, today included. */
export const OVERVIEW_DAYS = 30
/** Past this many shouts, a list with `maxShouts` unset (every shout) is worth a warning. */
export const MANY_SHOUTS = 1000

/**
 * GET /api/panel/shoutbox/overview — the board's figures for the panel's overview page:
 * the shouts posted on each of the last 30 days (UTC, oldest first, today last, days
 * without shouts as 0), the live readers (streams open on this process now) and the
 * mutes in force, the shouts waiting for review and the watched words. Shouts deleted
 * since are not counted. `manyShouts`: the board holds
 * over 1,000 shouts (the settings page warns when `maxShouts` is unset then: the list
 * would send every one).
 */
export class ShoutboxOverview extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/overview'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({
      days: Type.Array(Type.Object({
        day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the UTC day' }),
        shouts: Type.Integer({ minimum: 0 })
      }, { additionalProperties: false }), { minItems: OVERVIEW_DAYS, maxItems: OVERVIEW_DAYS, description: 'oldest first, today last' }),
      readers: Type.Integer({ minimum: 0, description: 'event streams open on the process that answered' }),
      mutes: Type.Integer({ minimum: 0, description: 'members muted now' }),
      manyShouts: Type.Boolean({ description: 'the board holds over 1,000 shouts' }),
      review: Type.Integer({ minimum: 0, description: 'shouts waiting for review (held, or reported)' }),
      words: Type.Integer({ minimum: 0, description: 'watched words' })
    }, {
      review: 2,
      words: 14,
      readers: 4,
      mutes: 1,
      manyShouts: false,
      days: Array.from({ length: OVERVIEW_DAYS }, (_, i) => ({
        day: new Date(Date.UTC(2026, 10, 22) - (OVERVIEW_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10),
        shouts: [0, 3, 5, 2, 8][i % 5]!
      }))
    }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
    const first = today - (OVERVIEW_DAYS - 1) * DAY_MS
    const counts = await shoutsRepository(call.ctx.db).perDay(first)
    const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => {
      const day = first + i * DAY_MS
      return { day: new Date(day).toISOString().slice(0, 10), shouts: counts.get(day) ?? 0 }
    })
    const [mutes, manyShouts] = await Promise.all([mutesRepository(call.ctx.db).count(Date.now()), shoutsRepository(call.ctx.db).moreThan(MANY_SHOUTS)])
    const [review, words] = await Promise.all([queueSize(call.ctx), watchedWordsRepository(call.ctx.db).count()])
    return new Successful({ days, readers: StreamHub.of(call.ctx).readers, mutes, manyShouts, review, words })
  }
}
