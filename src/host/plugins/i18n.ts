import fp from 'fastify-plugin'
import { I18n } from '../services/i18n.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Every owner's strings (the host's and each addon's `lang/`). */
    i18n: I18n
  }
}

export const i18nPlugin = fp(async app => {
  app.decorate('i18n', new I18n())
}, { name: 'shoutbox-i18n' })
