import fp from 'fastify-plugin'
import { ActivityRetention } from '../services/activity-retention.js'
import { addonConfigRepository } from '../services/addon-config.js'
import { AddonRegistry } from '../addons/registry.js'
import type { DiscoveredCode, LoadedAddon } from '../addons/loader.js'
import { HostPictures } from '../pictures/pictures.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The host and its addons in this process, and whether the platform has started. */
    addons: AddonRegistry
    /** Deletes activity entries past the site's `activityKeepDays`, hourly. */
    activityRetention: ActivityRetention
  }
}

export interface AddonsOptions {
  readonly found: readonly LoadedAddon[]
  readonly host: DiscoveredCode & { readonly langDir: string }
  /** PUBLIC_URL: the site's public origin, for the addresses an addon hands out. */
  readonly publicUrl?: string | undefined
  /** `UPLOADS_DIR`; unset → pictures' bytes in the database. */
  readonly uploadsDir?: string | undefined
}

/**
 * Assembles each owner's context from the host-wide services and runs the life cycle:
 * addons stop before the server closes (their event streams end), and the services
 * they used close after it, in order.
 */
export const addonsPlugin = fp<AddonsOptions>(async (app, { found, host, publicUrl, uploadsDir }) => {
  const pictures = new HostPictures(app.db, app.log, { dir: uploadsDir })
  const services = {
    db: app.db, log: app.log, activity: app.activity, notifications: app.notifications, config: addonConfigRepository(app.db), cluster: app.cluster, events: app.events, i18n: app.i18n, metrics: app.metrics, users: app.identity.users, webhooks: app.webhooks.outbox, addresses: { keyOf: async (ip: string) => app.identity.addresses.of(ip), recentKeysOf: async (ip: string) => app.identity.addresses.recent(ip) }, publicUrl, pictures
  }
  const registry = new AddonRegistry({ found, host, services, identity: app.identity, webhooks: app.webhooks, mail: app.mail })
  app.decorate('addons', registry)
  await registry.init()
  // The host's migrations (the outbox's table among them) have run: this process sends its
  // share of the webhooks, and prunes the activity log as the site says.
  app.webhooks.sender.start()
  const retention = new ActivityRetention(app.db, app.identity.siteSettings, app.log)
  app.decorate('activityRetention', retention)
  retention.start()
  // Whose pictures may be seen is each owner's to say; those no owner uses go after an hour.
  pictures.ownedThrough(ownerId => registry.pictureOwner(ownerId))
  pictures.start()

  // The server's connections are drained by DrainingServer (src/host/http/draining-server.ts).
  app.addHook('preClose', async () => {
    await registry.stop()
    await retention.stop()
    await pictures.stop()
  })
  app.addHook('onClose', async () => {
    await app.events.drain()
    await app.cluster.stop()
    await app.db.destroy()
  })
}, {
  name: 'shoutbox-addons',
  dependencies: ['shoutbox-database', 'shoutbox-cluster', 'shoutbox-events', 'shoutbox-i18n', 'shoutbox-activity', 'shoutbox-notifications', 'shoutbox-identity', 'shoutbox-metrics', 'shoutbox-webhooks', 'shoutbox-mail']
})
