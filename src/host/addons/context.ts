import type { FastifyBaseLogger } from 'fastify'
import type { AddonContext, AddressKeys, ConfigValue, Database, PermissionDeclaration, SessionUser } from '../../sdk/index.js'
import { holdsNode } from '../identity/permissions.js'
import { IDENTITY_CHANGED, isUserSignedOut, USER_SIGNED_OUT } from '../identity/sessions.js'
import type { UsersRepository } from '../identity/users.js'
import type { Identity } from '../plugins/identity.js'
import type { Webhooks } from '../plugins/webhooks.js'
import type { Mail } from '../plugins/mail.js'
import type { ActivityLogRepository } from '../services/activity-log.js'
import type { AddonConfigRepository } from '../services/addon-config.js'
import type { Cluster } from '../services/cluster.js'
import type { EventBus } from '../services/event-bus.js'
import type { I18n } from '../services/i18n.js'
import type { Metrics } from '../services/metrics.js'
import type { Notifications } from '../services/notifications.js'
import type { WebhookOutboxRepository } from '../webhooks/outbox.js'
import type { AddonRegistry } from './registry.js'
import type { HostPictures } from '../pictures/pictures.js'

/** The host-wide services an owner's context is made from. */
export interface ContextServices {
  readonly db: Database
  readonly log: FastifyBaseLogger
  readonly activity: ActivityLogRepository
  readonly notifications: Notifications
  readonly config: AddonConfigRepository
  readonly cluster: Cluster
  readonly events: EventBus
  readonly i18n: I18n
  readonly metrics: Metrics
  readonly users: UsersRepository
  readonly webhooks: WebhookOutboxRepository
  readonly addresses: AddressKeys
  /** PUBLIC_URL, when the operator set it. */
  readonly publicUrl?: string | undefined
  readonly pictures: HostPictures
}

export interface Owner {
  readonly id: string
  readonly permissions: readonly PermissionDeclaration[]
  readonly configDefaults: Readonly<Record<string, ConfigValue>>
}

/**
 * What the host's own endpoints receive as `call.ctx`: an addon's context (the host is
 * addon zero) and the host's own services, which no addon reaches.
 */
export interface HostContext extends AddonContext {
  readonly identity: Identity
  readonly addons: AddonRegistry
  /** The whole feed (an addon only writes its own entries). */
  readonly activityFeed: ActivityLogRepository
  /** Every owner's strings (the permission catalogue shows addons' titles). */
  readonly strings: I18n
  /** Every owner's notifications, as their users read them. */
  readonly notificationCenter: Notifications
  /** The webhooks the panel manages, and this process's sender. */
  readonly webhookAdmin: Webhooks
  /** The host's mail: the outbox, password resets, the settings the panel shows. */
  readonly mail: Mail
  /** Every owner's pictures, as `/uploads/` serves them. */
  readonly pictureStore: HostPictures
}

/** The SDK's view of the platform for one owner. The only place a context is assembled. */
export function createContext (owner: Owner, services: ContextServices): AddonContext {
  const nodes = new Map(owner.permissions.map(p => [p.key, p.node]))
  const { db, activity, config, cluster, events, i18n } = services
  const topic = (name: string): string => `${owner.id}:${name}`
  return {
    addonId: owner.id,
    db,
    transaction: work => db.transaction(work),
    config: {
      all: () => config.all(owner.id, owner.configDefaults),
      async get<T extends ConfigValue> (key: string) {
        if (!Object.hasOwn(owner.configDefaults, key)) throw new Error(`${owner.id} has no config key "${key}" in its manifest`)
        return (await config.all(owner.id, owner.configDefaults))[key] as T
      },
      set: (values, trx) => config.set(owner.id, owner.configDefaults, values, trx)
    },
    activityLog: {
      write: (entries, trx) => activity.write(owner.id, entries, trx),
      insertion: entries => activity.insertion(owner.id, entries),
      forget: (about, fields, trx) => activity.forget(owner.id, about, fields, trx)
    },
    events: { emit: (event, payload, trx) => events.emit(event.name, payload, trx) },
    notifications: {
      notify: async (userId, notification, trx) => { await services.notifications.notify(owner.id, userId, notification, trx) },
      remove: (keys, trx) => services.notifications.remove(owner.id, keys, trx),
      rewrite: (about, fields, trx) => services.notifications.rewrite(owner.id, about, fields, trx)
    },
    webhooks: {
      enqueue: (event, items, trx) => services.webhooks.enqueue(event, items, trx),
      insertion: (event, rows) => services.webhooks.insertion(event, rows),
      redact: (subject, fields, trx) => services.webhooks.redact(subject, fields, trx),
      rewrite: (subject, fields, trx) => services.webhooks.rewrite(subject, fields, trx)
    },
    cluster: {
      get linked () {
        return cluster.isLinked
      },
      notify: (name, payload, trx) => cluster.notify(topic(name), payload, trx),
      notifying: (name, payload) => cluster.notifying(topic(name), payload),
      delivered: (name, payload) => cluster.delivered(topic(name), payload),
      subscribe: (name, handler) => cluster.subscribe(topic(name), handler),
      onResync: handler => cluster.onResync(handler)
    },
    i18n: { t: (locale, key, values) => i18n.t(owner.id, locale, key, values) },
    permissions: {
      has (user: SessionUser, key: string): boolean {
        const node = nodes.get(key)
        if (node === undefined) throw new Error(`${owner.id} declares no permission "${key}"`)
        return holdsNode(user, node)
      }
    },
    users: {
      find: (id, trx) => services.users.sessionUser(id, trx),
      findActive: id => services.users.sessionUser(id, undefined, { active: true }),
      findByNames: names => services.users.activeSessionUsers(names),
      namesOf: (ids, options) => services.users.namesOf(ids, options),
      usernameFolded: (fold, folded) => services.users.usernameFolded(fold, folded),
      createdAt: async id => (await services.users.find(id))?.createdAt,
      onAccessChange (handler) {
        cluster.subscribeJson(USER_SIGNED_OUT, isUserSignedOut, ({ userId }) => handler(userId))
        cluster.subscribe(IDENTITY_CHANGED, () => handler(null))
        cluster.onResync(() => handler(null))
      }
    },
    addresses: { keyOf: ip => services.addresses.keyOf(ip), recentKeysOf: ip => services.addresses.recentKeysOf(ip) },
    metrics: { counter: (name, help) => services.metrics.counter(owner.id, name, help) },
    pictures: services.pictures.forOwner(owner.id),
    log: services.log.child({ addon: owner.id }),
    publicUrl: services.publicUrl
  }
}

export function createHostContext (owner: Owner, services: ContextServices, identity: Identity, addons: AddonRegistry, webhooks: Webhooks, mail: Mail): HostContext {
  return { ...createContext(owner, services), identity, addons, activityFeed: services.activity, strings: services.i18n, notificationCenter: services.notifications, webhookAdmin: webhooks, mail, pictureStore: services.pictures }
}
