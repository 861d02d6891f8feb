import fp from 'fastify-plugin'
import { webhookOutboxRepository, webhooksRepository, type WebhookOutboxRepository, type WebhooksRepository } from '../webhooks/outbox.js'
import { WebhookSender, type SenderOptions } from '../webhooks/sender.js'

export interface WebhooksOptions {
  /** `WEBHOOKS_ALLOW_HTTP`: a hook's URL may be plain http. */
  readonly allowHttp: boolean
  readonly sender: SenderOptions
}

/** Outgoing webhooks: the outbox changes write to, the hooks the panel manages, and this process's sender. */
export interface Webhooks {
  readonly outbox: WebhookOutboxRepository
  readonly hooks: WebhooksRepository
  readonly sender: WebhookSender
  readonly allowHttp: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: Webhooks
  }
}

/**
 * The sender starts with the platform (the tables exist only after setup) and stops
 * before the database closes; a try it abandons is taken again by a process still running.
 */
export const webhooksPlugin = fp<WebhooksOptions>(async (app, options) => {
  const sender = new WebhookSender(app.db, app.cluster, app.log.child({ part: 'webhooks' }), options.sender)
  app.decorate('webhooks', { outbox: webhookOutboxRepository(app.db), hooks: webhooksRepository(app.db), sender, allowHttp: options.allowHttp })
  app.addHook('preClose', async () => {
    await sender.stop()
  })
}, { name: 'shoutbox-webhooks', dependencies: ['shoutbox-database', 'shoutbox-cluster'] })
