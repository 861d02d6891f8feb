import {
  BadRequest, Conflict, IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall
} from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { WEBHOOKS_TABLE } from '../database/tables.js'
import { PING, WEBHOOK_FORMATS, type Webhook, type WebhookFormat } from '../webhooks/outbox.js'

/** More hooks than a site needs would only multiply every change's writes. */
const MAX_WEBHOOKS = 20

const WebhookSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  format: Type.Unsafe<WebhookFormat>({ type: 'string', enum: [...WEBHOOK_FORMATS], description: 'what its deliveries look like: "shoutbox" (signed envelope), "slack" ({text, username}) or "discord" ({content, username, allowed_mentions})' }),
  room: Type.Union([Type.String(), Type.Null()], { description: "only events about this room (its slug); null: every event" }),
  createdAt: Type.Integer()
})
const DeliverySchema = Type.Object({
  id: Type.String({ description: 'the `id` of the body and of the Shoutbox-Delivery header: receivers de-duplicate by it' }),
  event: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  responseCode: Type.Union([Type.Integer(), Type.Null()], { description: "the receiver's last status; null when none answered (refused, unreachable, too slow)" }),
  nextAttemptAt: Type.Union([Type.Integer(), Type.Null()], { description: 'when it is tried next; null once delivered or failed' }),
  createdAt: Type.Integer()
})

const WEBHOOK_EXAMPLE = { id: 1, url: 'https://chat.example.org/hooks/shoutbox', events: ['shout.created', 'report.created'], active: true, format: 'shoutbox' as const, room: null, createdAt: 1795000000000 }
const DELIVERY_EXAMPLE = {
  id: '5b0c3f1e-8d2a-4c7e-9a51-2f6d0b4e7c13', event: 'shout.created', status: 'delivered' as const, attempts: 1, responseCode: 200, nextAttemptAt: null, createdAt: 1795000100000
}

const UrlSchema = Type.String({ minLength: 8, maxLength: 2000, description: 'https:// (http:// only with WEBHOOKS_ALLOW_HTTP=1); private addresses are refused when sent' })
const FormatSchema = Type.Unsafe<WebhookFormat>({
  type: 'string',
  enum: [...WEBHOOK_FORMATS],
  description: '"shoutbox" (the default): the signed envelope; "slack" / "discord": the body a Slack or Discord channel\'s incoming webhook takes, for `shout.created` only; shouts that came in through an incoming hook are not sent to these'
})
const RoomSchema = Type.Union([Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,31}$' }), Type.Null()], {
  description: "a room's slug: only events about that room are sent (a chat channel bridged to one room); null or absent: every event"
})
/** The only event a chat channel's hook takes: a new shout is a message; nothing else is. */
const CHAT_EVENTS: readonly string[] = ['shout.created']
const EventsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50, description: 'events to send (GET /api/panel/webhooks lists them)' })

/** The hooks' URL rules, checked when one is saved (the address it resolves to is checked at each send). */
function checkedUrl (value: string, allowHttp: boolean): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new BadRequest({ reason: 'url is not a URL' })
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) {
    throw new BadRequest({ reason: allowHttp ? 'url must be https:// or http://' : 'url must be https:// (http:// needs WEBHOOKS_ALLOW_HTTP=1)' })
  }
  if (url.username !== '' || url.password !== '') throw new BadRequest({ reason: 'url may not hold a user name or password' })
  return url.href
}

function checkedEvents (events: readonly string[], known: readonly string[]): readonly string[] {
  const unknown = events.filter(event => !known.includes(event))
  if (unknown.length > 0) throw new BadRequest({ reason: `unknown events: ${unknown.join(', ')}` })
  return events
}

/** A Slack or Discord hook takes new shouts only: the other events have no message in a channel. */
function checkedFormat (format: WebhookFormat, events: readonly string[]): WebhookFormat {
  if (format !== 'shoutbox' && events.some(event => !CHAT_EVENTS.includes(event))) {
    throw new BadRequest({ reason: `a ${format} webhook takes only ${CHAT_EVENTS.join(', ')}` })
  }
  return format
}

/** What the activity feed names a hook by: its host, never its path (which may hold a key). */
const about = (hook: Webhook): Record<string, unknown> => ({ host: new URL(hook.url).host, webhookId: hook.id })

/**
 * GET /api/panel/webhooks — the hooks (never their secrets), the events they may subscribe
 * to, and whether this server takes plain http:// URLs (WEBHOOKS_ALLOW_HTTP), so the form
 * says what it will take.
 */
export class ListWebhooks extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/webhooks'
  readonly schema = {}
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({
      webhooks: Type.Array(WebhookSchema),
      events: Type.Array(Type.String()),
      allowHttp: Type.Boolean({ description: 'plain http:// URLs are taken too (WEBHOOKS_ALLOW_HTTP=1); otherwise https:// only' })
    }, {
      webhooks: [WEBHOOK_EXAMPLE], events: ['member.signed_up', 'shout.created', 'shout.edited', 'shout.deleted', 'report.created', 'member.muted'], allowHttp: false
    }),
    errors: [NoPermission]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    return new Successful({ webhooks: await call.ctx.webhookAdmin.hooks.list(), events: call.ctx.addons.webhookEvents(), allowHttp: call.ctx.webhookAdmin.allowHttp })
  }
}

const CreateSchema = {
  body: Type.Object({ url: UrlSchema, events: EventsSchema, active: Type.Optional(Type.Boolean({ default: true })), format: Type.Optional(FormatSchema), room: Type.Optional(RoomSchema) }, { additionalProperties: false })
}

/** POST /api/panel/webhooks — a new hook; its signing secret is in this answer only. */
export class CreateWebhook extends PanelApi<typeof CreateSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/webhooks'
  readonly schema = CreateSchema
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ webhook: WebhookSchema, secret: Type.String({ description: 'signs every delivery (Shoutbox-Signature); shown this once' }) },
      { webhook: WEBHOOK_EXAMPLE, secret: 'whsec_Jm3kR0qj1c8yq3b4F9vV2pXl0e7n6s5a4d3f2g1h0iU' }),
    errors: [NoPermission, Conflict]
  }

  async handle (call: SignedInCall<typeof CreateSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    const { ctx, body } = call
    const events = checkedEvents(body.events, ctx.addons.webhookEvents())
    const hook = { url: checkedUrl(body.url, ctx.webhookAdmin.allowHttp), events, active: body.active ?? true, format: checkedFormat(body.format ?? 'shoutbox', events), room: body.room ?? null }
    const created = await ctx.transaction(async trx => {
      await trx.raw(`lock table ${WEBHOOKS_TABLE} in share row exclusive mode`)
      if (await ctx.webhookAdmin.hooks.count(trx) >= MAX_WEBHOOKS) throw new Conflict({ reason: `at most ${MAX_WEBHOOKS} webhooks` })
      const made = await ctx.webhookAdmin.hooks.create(hook, trx)
      await ctx.activityLog.write({ type: 'CREATED_WEBHOOK', user: call.user, details: about(made.webhook) }, trx)
      await ctx.webhookAdmin.sender.hooksChanged(trx)
      return made
    })
    return new Successful(created)
  }
}

const UpdateSchema = {
  params: IdParamsSchema,
  body: Type.Object({ url: Type.Optional(UrlSchema), events: Type.Optional(EventsSchema), active: Type.Optional(Type.Boolean()), format: Type.Optional(FormatSchema), room: Type.Optional(RoomSchema) }, { additionalProperties: false, minProperties: 1 })
}

/** PUT /api/panel/webhooks/:id — changes the fields sent (its secret stays). */
export class UpdateWebhook extends PanelApi<typeof UpdateSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/panel/webhooks/:id'
  readonly schema = UpdateSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({ webhook: WebhookSchema }, { webhook: { ...WEBHOOK_EXAMPLE, active: false } }), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof UpdateSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    const { ctx, body } = call
    const change = {
      ...(body.url === undefined ? {} : { url: checkedUrl(body.url, ctx.webhookAdmin.allowHttp) }),
      ...(body.events === undefined ? {} : { events: checkedEvents(body.events, ctx.addons.webhookEvents()) }),
      ...(body.active === undefined ? {} : { active: body.active })
    }
    const webhook = await ctx.transaction(async trx => {
      const id = Number(call.params.id)
      const before = await ctx.webhookAdmin.hooks.find(id, trx)
      if (before === undefined) throw new NotFound()
      checkedFormat(body.format ?? before.format, change.events ?? before.events)
      const updated = await ctx.webhookAdmin.hooks.update(id, { ...change, ...(body.format === undefined ? {} : { format: body.format }), ...(body.room === undefined ? {} : { room: body.room }) }, trx)
      if (updated === undefined) throw new NotFound()
      await ctx.activityLog.write({ type: 'UPDATED_WEBHOOK', user: call.user, details: about(updated) }, trx)
      await ctx.webhookAdmin.sender.hooksChanged(trx)
      return updated
    })
    return new Successful({ webhook })
  }
}

const HookSchema = { params: IdParamsSchema }

/** DELETE /api/panel/webhooks/:id — the hook and its deliveries go; none pending is sent. */
export class DeleteWebhook extends PanelApi<typeof HookSchema, HostContext> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/webhooks/:id'
  readonly schema = HookSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof HookSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    const { ctx } = call
    await ctx.transaction(async trx => {
      const deleted = await ctx.webhookAdmin.hooks.delete(Number(call.params.id), trx)
      if (deleted === undefined) throw new NotFound()
      await ctx.activityLog.write({ type: 'DELETED_WEBHOOK', user: call.user, details: about(deleted) }, trx)
      await ctx.webhookAdmin.sender.hooksChanged(trx)
    })
    return new Successful()
  }
}

/** GET /api/panel/webhooks/:id/deliveries — the hook's last 100 deliveries, the newest first. */
export class ListDeliveries extends PanelApi<typeof HookSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/webhooks/:id/deliveries'
  readonly schema = HookSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({ deliveries: Type.Array(DeliverySchema) }, { deliveries: [DELIVERY_EXAMPLE] }), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof HookSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    const { hooks } = call.ctx.webhookAdmin
    const id = Number(call.params.id)
    if (await hooks.find(id) === undefined) throw new NotFound()
    return new Successful({ deliveries: await hooks.deliveries(id) })
  }
}

/** POST /api/panel/webhooks/:id/ping — queues a `ping` to the hook (sent at once); its outcome shows in the deliveries. */
export class PingWebhook extends PanelApi<typeof HookSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/webhooks/:id/ping'
  readonly schema = HookSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({ delivery: DeliverySchema }, { delivery: { ...DELIVERY_EXAMPLE, event: PING, status: 'pending', attempts: 0, responseCode: null, nextAttemptAt: 1795000100000 } }), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof HookSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    const { webhookAdmin } = call.ctx
    const id = Number(call.params.id)
    const delivery = await call.ctx.transaction(async trx => {
      if (await webhookAdmin.hooks.find(id, trx) === undefined) throw new NotFound()
      return webhookAdmin.hooks.ping(id, trx)
    })
    webhookAdmin.sender.kick()
    return new Successful({ delivery })
  }
}

const RedeliverSchema = {
  params: Type.Object({ id: IdParamsSchema.properties.id, deliveryId: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }) })
}

/** POST /api/panel/webhooks/:id/deliveries/:deliveryId/redeliver — queues the delivery again (same id), its tries counted afresh. */
export class RedeliverDelivery extends PanelApi<typeof RedeliverSchema, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/webhooks/:id/deliveries/:deliveryId/redeliver'
  readonly schema = RedeliverSchema
  override readonly closedToTokens = true
  override readonly answers = { ok: okAnswer({ delivery: DeliverySchema }, { delivery: { ...DELIVERY_EXAMPLE, status: 'pending', attempts: 0, responseCode: null, nextAttemptAt: 1795000200000 } }), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<typeof RedeliverSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_WEBHOOKS')
    const { webhookAdmin } = call.ctx
    const delivery = await call.ctx.transaction(trx => webhookAdmin.hooks.redeliver(Number(call.params.id), call.params.deliveryId, trx))
    if (delivery === undefined) throw new NotFound()
    webhookAdmin.sender.kick()
    return new Successful({ delivery })
  }
}
