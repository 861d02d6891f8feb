import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import {
  AddonStarted, AddonStopping, InstallationRequired, type AddonContext, type PermissionDeclaration
} from '../sdk/index.js'
import type { LoadedAddon } from './addons/loader.js'
import { createContext, type ContextServices, type Owner } from './addons/context.js'
import type { Database } from './database/connect.js'
import { hostMigrations } from './database/host-migrations.js'
import { migrate } from './database/migrate.js'
import { LoginThrottle, type ThrottlePolicy } from './identity/login-throttle.js'
import { PasswordHasher } from './identity/passwords.js'
import { HOST_PERMISSIONS } from './identity/permissions.js'
import { rolesRepository } from './identity/roles.js'
import { Sessions } from './identity/sessions.js'
import { usersRepository } from './identity/users.js'
import { ActivityLogStore, HOST } from './services/activity-log.js'
import { AddonConfigStore } from './services/addon-config.js'
import { Cluster } from './services/cluster.js'
import { EventBus } from './services/event-bus.js'
import { I18n } from './services/i18n.js'
import { Settings } from './services/settings.js'
import { MemoryAnswers } from './http/memory-answers.js'

export interface PlatformOptions {
  readonly database: Database
  readonly log: FastifyBaseLogger
  readonly addons: readonly LoadedAddon[]
  readonly hostLangDir: string
  readonly hasher?: PasswordHasher
  readonly throttle?: ThrottlePolicy
}

export type AddonState = 'waiting for setup' | 'started' | 'failed'

/** An enabled addon in this process. */
export class AddonRuntime {
  state: AddonState = 'waiting for setup'

  constructor (readonly addon: LoadedAddon, readonly ctx: AddonContext) {}

  get id (): string {
    return this.addon.manifest.id
  }
}

/**
 * The host's services, shared by every request and every addon. One per app.
 */
export class Platform {
  readonly db: Database['knex']
  readonly settings: Settings
  readonly i18n = new I18n()
  readonly events: EventBus
  readonly cluster: Cluster
  readonly activity: ActivityLogStore
  readonly addonConfig: AddonConfigStore
  readonly sessions: Sessions
  readonly users: ReturnType<typeof usersRepository>
  readonly roles: ReturnType<typeof rolesRepository>
  readonly throttle: LoginThrottle
  readonly hasher: PasswordHasher
  readonly hostContext: AddonContext
  /** Answers the HTTP server may send without running Fastify (see MemoryAnswers). */
  readonly answers = new MemoryAnswers(() => this.initialised && !this.stopping)
  /** Every addon found, enabled or not. */
  readonly addons: readonly LoadedAddon[]
  /** The addons enabled when this process started: only these have routes. */
  readonly runtimes = new Map<string, AddonRuntime>()
  private readonly services: ContextServices
  private initialising: Promise<void> | undefined
  private initialised = false
  /** Set when the host begins to stop. */
  stopping = false

  constructor (private readonly options: PlatformOptions) {
    const { database, log } = options
    this.db = database.knex
    this.addons = options.addons
    this.settings = new Settings(this.db)
    this.events = new EventBus(log)
    this.cluster = new Cluster(database, log)
    this.activity = new ActivityLogStore(this.db, this.i18n)
    this.addonConfig = new AddonConfigStore(this.db)
    this.sessions = new Sessions(this.db, this.cluster)
    this.users = usersRepository(this.db)
    this.roles = rolesRepository(this.db)
    this.throttle = new LoginThrottle(this.db, options.throttle)
    this.hasher = options.hasher ?? new PasswordHasher()
    this.services = {
      db: this.db, log, activity: this.activity, config: this.addonConfig, cluster: this.cluster, events: this.events, i18n: this.i18n, answers: this.answers
    }
    this.hostContext = createContext({ id: HOST, permissions: HOST_PERMISSIONS, configDefaults: {}, publicGetPaths: [] }, this.services)
  }

  get log (): FastifyBaseLogger {
    return this.options.log
  }

  /** Host tables, strings, the enabled set; addons too when setup is already done. */
  async init (): Promise<void> {
    await migrate(this.db, HOST, hostMigrations)
    await this.i18n.addFolder(HOST, this.options.hostLangDir)
    const states: Array<{ addon_id: string, enabled: boolean }> = await this.db('addon_state').select()
    const disabled = new Set(states.filter(s => !s.enabled).map(s => s.addon_id))
    for (const addon of this.addons) {
      await this.i18n.addFolder(addon.manifest.id, path.join(addon.source.dir, 'lang'))
      if (disabled.has(addon.manifest.id)) continue
      this.runtimes.set(addon.manifest.id, new AddonRuntime(addon, createContext(ownerOf(addon), this.services)))
    }
    await this.cluster.start()
    if (await this.settings.isSetupDone()) await this.initialiseAddons()
  }

  /** Setup is done and the addons were started in this process: nothing to check per request. */
  get ready (): boolean {
    return this.initialised
  }

  /** Throws InstallationRequired before setup; after it (in any process), makes sure addons run here. */
  async ensureReady (): Promise<void> {
    if (this.initialised) return
    if (!await this.settings.isSetupDone()) throw new InstallationRequired()
    await this.initialiseAddons()
  }

  /**
   * Runs each enabled addon's migrations (once, across processes), subscribes its
   * listeners and starts it. Called at start-up after setup, or right after setup finishes.
   */
  initialiseAddons (): Promise<void> {
    this.initialising ??= this.startAddons().finally(() => { this.initialising = undefined })
    return this.initialising
  }

  private async startAddons (): Promise<void> {
    if (this.initialised) return
    const started: AddonRuntime[] = []
    for (const runtime of this.runtimes.values()) {
      if (runtime.state === 'started') continue
      try {
        await migrate(this.db, runtime.id, runtime.addon.migrations)
        for (const { instance } of runtime.addon.listeners) {
          this.events.subscribe(instance.event.name, { owner: runtime.id, ctx: runtime.ctx, handle: (p, c) => instance.handle(p, c) })
        }
        await runtime.addon.definition.start?.(runtime.ctx)
        runtime.state = 'started'
        started.push(runtime)
      } catch (error) {
        runtime.state = 'failed'
        this.events.unsubscribeOwner(runtime.id)
        this.log.error({ err: error, addon: runtime.id }, `addon "${runtime.id}" failed to start; its endpoints answer 503`)
      }
    }
    this.initialised = true
    for (const runtime of started) this.events.emit(AddonStarted.name, { addonId: runtime.id })
  }

  /** Every permission node of the host and of the enabled addons. */
  permissionCatalogue (): Array<PermissionDeclaration & { owner: string }> {
    return [
      ...HOST_PERMISSIONS.map(p => ({ ...p, owner: HOST })),
      ...[...this.runtimes.values()].flatMap(r => r.addon.manifest.permissions.map(p => ({ ...p, owner: r.id })))
    ]
  }

  /** Before the server closes: addons end their long-lived answers (event streams). */
  async stopAddons (): Promise<void> {
    this.stopping = true
    for (const runtime of this.runtimes.values()) {
      if (runtime.state !== 'started') continue
      this.events.emit(AddonStopping.name, { addonId: runtime.id })
    }
    await this.events.drain()
    for (const runtime of this.runtimes.values()) {
      if (runtime.state !== 'started') continue
      try {
        await runtime.addon.definition.stop?.(runtime.ctx)
      } catch (error) {
        this.log.error({ err: error, addon: runtime.id }, 'addon failed to stop cleanly')
      }
    }
  }

  /** After the server closed and every request finished. */
  async close (): Promise<void> {
    await this.events.drain()
    await this.cluster.stop()
    await this.db.destroy()
  }
}

function ownerOf (addon: LoadedAddon): Owner {
  return {
    id: addon.manifest.id,
    permissions: addon.manifest.permissions,
    configDefaults: addon.manifest.config,
    publicGetPaths: addon.endpoints.filter(e => e.instance.access === 'Api' && e.instance.method === 'GET').map(e => e.instance.path)
  }
}
