import type { FastifyBaseLogger } from 'fastify'
import type { Knex } from 'knex'
import type { AddonContext, ConfigValue, PermissionDeclaration, SessionUser } from '../../sdk/index.js'
import type { ActivityLogStore } from '../services/activity-log.js'
import type { AddonConfigStore } from '../services/addon-config.js'
import type { Cluster } from '../services/cluster.js'
import type { EventBus } from '../services/event-bus.js'
import type { I18n } from '../services/i18n.js'
import { holdsNode } from '../identity/permissions.js'
import type { MemoryAnswers } from '../http/memory-answers.js'

export interface ContextServices {
  readonly db: Knex
  readonly log: FastifyBaseLogger
  readonly activity: ActivityLogStore
  readonly config: AddonConfigStore
  readonly cluster: Cluster
  readonly events: EventBus
  readonly i18n: I18n
  readonly answers: MemoryAnswers
}

export interface Owner {
  readonly id: string
  readonly permissions: readonly PermissionDeclaration[]
  readonly configDefaults: Readonly<Record<string, ConfigValue>>
  /** Paths of the owner's public GET endpoints: the only ones it may answer from memory. */
  readonly publicGetPaths: readonly string[]
}

/** The SDK's view of the platform for one owner (an addon, or the host itself). */
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
    activityLog: { write: (entries, trx) => activity.write(owner.id, entries, trx) },
    events: { emit: (event, payload, trx) => events.emit(event.name, payload, trx) },
    cluster: {
      get linked () {
        return cluster.isLinked
      },
      notify: (name, payload, trx) => cluster.notify(topic(name), payload, trx),
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
    answers: {
      remember (path, answer) {
        if (!owner.publicGetPaths.includes(path)) throw new Error(`${owner.id} has no public GET endpoint ${path}`)
        services.answers.remember(path, { body: answer.body, etag: answer.etag, headers: answer.headers ?? {} })
      },
      forget: path => services.answers.forget(path)
    },
    log: services.log.child({ addon: owner.id })
  }
}
