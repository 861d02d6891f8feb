import fp from 'fastify-plugin'
import { HeavyAnswers, type HeavyLimits } from '../http/heavy-answers.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The heavy answers (exports, an unbounded list) this process is sending, per client. */
    heavyAnswers: HeavyAnswers
  }
}

export const heavyAnswersPlugin = fp<{ limits?: HeavyLimits }>(async (app, { limits }) => {
  app.decorate('heavyAnswers', new HeavyAnswers(limits))
}, { name: 'shoutbox-heavy-answers' })
