import fp from 'fastify-plugin'
import { AnswerCache } from '../http/answer-cache.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Answers kept in memory for endpoints that declare a CachePolicy, and the fast path serving them. */
    answerCache: AnswerCache
  }
}

export const answerCachePlugin = fp<{ logRequests: boolean }>(async (app, { logRequests }) => {
  const open = (): boolean => app.addons.started && !app.addons.stopping
  app.decorate('answerCache', new AnswerCache(app.cluster, open, logRequests ? app.log : undefined))
}, { name: 'shoutbox-answer-cache', dependencies: ['shoutbox-cluster', 'shoutbox-addons'] })
