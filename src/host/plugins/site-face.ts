import fp from 'fastify-plugin'
import { keepFace, SiteFaces } from '../site-face/face.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The site's name, welcome, accent and default language, kept per process until a change. */
    siteFace: SiteFaces
  }
}

export const siteFacePlugin = fp(async app => {
  const faces = new SiteFaces(app.db, app.cluster, app.i18n)
  keepFace(app.db, faces)
  app.decorate('siteFace', faces)
}, { name: 'shoutbox-site-face', dependencies: ['shoutbox-database', 'shoutbox-cluster', 'shoutbox-i18n'] })
