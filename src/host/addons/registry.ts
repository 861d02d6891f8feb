import path from 'node:path'
import type { Webhooks } from '../plugins/webhooks.js'
import type { Mail } from '../plugins/mail.js'
import type { VisibleNotifications } from '../services/notifications.js'
import { HOST_WEBHOOK_EVENTS } from '../webhooks/outbox.js'
import {
  AddonStarted, AddonStopping, InstallationRequired, type ActivityRedactor, type AddonContext, type ErasureMode, type PermissionDeclaration, type PrivacyNote, type RuntimePermission, type MappedTable, type MemberViewer, type PictureOwner, type StreamedObject, type Transaction
} from '../../sdk/index.js'
import { migrate } from '../database/migrate.js'
import { HOST_PERMISSIONS } from '../identity/permissions.js'
import type { Identity } from '../plugins/identity.js'
import { addonStateRepository } from './addon-state-repository.js'
import { createContext, createHostContext, type ContextServices, type HostContext, type Owner } from './context.js'
import { ADDON_LAYOUT } from './layout.js'
import { HOST_ID, type DiscoveredCode, type LoadedAddon } from './loader.js'

type AddonState = 'waiting for setup' | 'started' | 'failed'

/** An enabled addon in this process. */
export class AddonRuntime {
  state: AddonState = 'waiting for setup'
  /** What the addon says of its pictures, once asked. */
  pictures: PictureOwner | undefined

  constructor (readonly addon: LoadedAddon, readonly ctx: AddonContext) {}

  get id (): string {
    return this.addon.manifest.id
  }

  get started (): boolean {
    return this.state === 'started'
  }
}

export interface RegistryOptions {
  /** Every addon found, enabled or not. */
  readonly found: readonly LoadedAddon[]
  /** The host's own code: addon zero. */
  readonly host: DiscoveredCode & { readonly langDir: string }
  readonly services: ContextServices
  readonly identity: Identity
  readonly webhooks: Webhooks
  readonly mail: Mail
}

const HOST_OWNER: Owner = { id: HOST_ID, permissions: HOST_PERMISSIONS, configDefaults: {} }

/**
 * The host and its addons in this process: which are enabled, their contexts, and their
 * life: migrations, listeners, start and stop. "Started" is the one word for ready: the
 * platform is started once setup is done and its addons were started here.
 */
export class AddonRegistry {
  readonly found: readonly LoadedAddon[]
  /** The host's own endpoints, listeners and migrations. */
  readonly host: DiscoveredCode
  /** The addons enabled when this process started: only these have routes. */
  readonly runtimes = new Map<string, AddonRuntime>()
  readonly hostContext: HostContext
  readonly states
  /** Set when the host begins to stop. */
  stopping = false
  private isStarted = false
  private starting: Promise<void> | undefined

  constructor (private readonly options: RegistryOptions) {
    this.found = options.found
    this.host = options.host
    this.states = addonStateRepository(options.services.db)
    this.hostContext = createHostContext(HOST_OWNER, options.services, options.identity, this, options.webhooks, options.mail)
  }

  /** Host tables and strings, the enabled set; the addons too when setup is already done. */
  async init (): Promise<void> {
    const { services, host } = this.options
    await migrate(services.db, HOST_ID, host.migrations)
    await services.i18n.addFolder(HOST_ID, host.langDir)
    const enabled = await this.states.all()
    for (const addon of this.found) {
      await services.i18n.addFolder(addon.manifest.id, path.join(addon.source.dir, ADDON_LAYOUT.lang))
      if (enabled.get(addon.manifest.id) === false) continue
      this.runtimes.set(addon.manifest.id, new AddonRuntime(addon, createContext(ownerOf(addon), services)))
    }
    for (const { instance } of host.listeners) {
      services.events.subscribe(instance.event.name, { owner: HOST_ID, ctx: this.hostContext, handle: (p, c) => instance.handle(p, c) })
    }
    if (await this.options.identity.setup.isSetupDone()) await this.start()
  }

  /** Setup is done and the addons were started in this process: nothing to check per request. */
  get started (): boolean {
    return this.isStarted
  }

  /** Throws InstallationRequired before setup; after it (done by any process), starts the addons here. */
  async ensureStarted (): Promise<void> {
    if (this.isStarted) return
    if (!await this.options.identity.setup.isSetupDone()) throw new InstallationRequired()
    await this.start()
  }

  /**
   * Runs each enabled addon's migrations (once, across processes), subscribes its
   * listeners and starts it. Called at start-up after setup, or right after setup finishes.
   */
  start (): Promise<void> {
    this.starting ??= this.startAddons().finally(() => { this.starting = undefined })
    return this.starting
  }

  private async startAddons (): Promise<void> {
    if (this.isStarted) return
    const { services } = this.options
    const started: AddonRuntime[] = []
    for (const runtime of this.runtimes.values()) {
      if (runtime.started) continue
      try {
        await migrate(services.db, runtime.id, runtime.addon.migrations)
        await this.grantDefaults(runtime)
        for (const { instance } of runtime.addon.listeners) {
          services.events.subscribe(instance.event.name, { owner: runtime.id, ctx: runtime.ctx, handle: (p, c) => instance.handle(p, c) })
        }
        await runtime.addon.definition.start?.(runtime.ctx)
        runtime.state = 'started'
        started.push(runtime)
      } catch (error) {
        runtime.state = 'failed'
        services.events.unsubscribeOwner(runtime.id)
        services.log.error({ err: error, addon: runtime.id }, `addon "${runtime.id}" failed to start; its endpoints answer 503`)
      }
    }
    this.isStarted = true
    for (const runtime of started) services.events.emit(AddonStarted.name, { addonId: runtime.id })
  }

  /**
   * The addon's permissions marked `default` go to the member role the first time the
   * host runs it (its first install, or the version that added them); once only, so
   * one an administrator took away stays away.
   */
  private async grantDefaults (runtime: AddonRuntime): Promise<void> {
    const nodes = runtime.addon.manifest.permissions.filter(p => p.default === true).map(p => p.node)
    if (nodes.length === 0) return
    const { db } = this.options.services
    const { roles, sessions } = this.options.identity
    await db.transaction(async trx => {
      if (await roles.grantDefaults(nodes, trx)) await sessions.identityChanged(trx)
    })
  }

  /** Every permission node of the host and of the enabled addons' manifests. */
  permissionCatalogue (): Array<PermissionDeclaration & { owner: string }> {
    return [
      ...HOST_PERMISSIONS.map(p => ({ ...p, owner: HOST_ID })),
      ...[...this.runtimes.values()].flatMap(r => r.addon.manifest.permissions.map(p => ({ ...p, owner: r.id })))
    ]
  }

  /**
   * The nodes the started addons made as they run (see AddonDefinition.permissionNodes),
   * titled in `locale`; a node outside its addon's `addon.<id>.` is left out, and an addon
   * whose list fails is logged and lists none.
   */
  /** The events webhooks may subscribe to: the host's own and each started addon's. */
  webhookEvents (): string[] {
    const declared = [...this.runtimes.values()].filter(r => r.started).flatMap(r => r.addon.definition.webhookEvents ?? [])
    return [...new Set([...HOST_WEBHOOK_EVENTS, ...declared])]
  }

  async runtimePermissions (locale: string, viewer: MemberViewer): Promise<Array<RuntimePermission & { owner: string }>> {
    const lists = await Promise.all([...this.runtimes.values()].filter(r => r.started && r.addon.definition.permissionNodes !== undefined).map(async r => {
      try {
        const nodes = await r.addon.definition.permissionNodes!(r.ctx, locale, viewer)
        return nodes.filter(p => p.node.startsWith(`addon.${r.id}.`)).map(p => ({ ...p, owner: r.id }))
      } catch (error) {
        this.options.services.log.error({ err: error, addon: r.id }, 'could not list the addon\'s permission nodes')
        return []
      }
    }))
    return lists.flat()
  }

  /**
   * How each started addon that says so redacts its activity entries for `user`, by
   * addon id. An addon whose reader fails shows `user` only the bare type of its entries.
   */
  async activityReaders (viewer: MemberViewer): Promise<Map<string, ActivityRedactor>> {
    const readers = new Map<string, ActivityRedactor>()
    await Promise.all([...this.runtimes.values()].filter(r => r.started && r.addon.definition.activityReader !== undefined).map(async r => {
      try {
        readers.set(r.id, await r.addon.definition.activityReader!(r.ctx, viewer))
      } catch (error) {
        this.options.services.log.error({ err: error, addon: r.id }, 'could not read the addon\'s activity for a user')
        readers.set(r.id, () => ({ variant: 'hidden' }))
      }
    }))
    return readers
  }

  /**
   * Whether every started addon that has a say lets a sign-up take `username`. An addon
   * whose check fails is logged and not heard: its failure does not close sign-up.
   */
  async allowsUsername (username: string): Promise<boolean> {
    const answers = await Promise.all([...this.runtimes.values()].filter(r => r.started && r.addon.definition.allowsUsername !== undefined).map(async r => {
      try {
        return await r.addon.definition.allowsUsername!(r.ctx, username)
      } catch (error) {
        this.options.services.log.error({ err: error, addon: r.id }, 'could not check a username')
        return true
      }
    }))
    return answers.every(Boolean)
  }

  /**
   * Which notifications `viewer` may be shown now, as each started addon that says so
   * decides for its own (see AddonDefinition.notificationFilter). An addon whose filter
   * fails shows none of its notifications this time (logged): nothing is shown unasked.
   */
  async visibleNotifications (viewer: MemberViewer): Promise<VisibleNotifications> {
    const { db } = this.options.services
    const filters = await Promise.all([...this.runtimes.values()].filter(r => r.addon.definition.notificationFilter !== undefined).map(async r => {
      try {
        if (!r.started) return { addonId: r.id, filter: undefined }
        return { addonId: r.id, filter: await r.addon.definition.notificationFilter!(r.ctx, viewer) }
      } catch (error) {
        this.options.services.log.error({ err: error, addon: r.id }, 'could not decide which notifications a user may see')
        return { addonId: r.id, filter: undefined }
      }
    }))
    if (filters.length === 0) return { sql: db.raw('true'), shows: () => true }
    const byAddon = new Map(filters.map(({ addonId, filter }) => [addonId, filter]))
    return {
      sql: db.raw(filters.map(() => '(n.addon_id <> ? or ?)').join(' and '), filters.flatMap(({ addonId, filter }) => [addonId, filter?.sql ?? db.raw('false')])),
      shows: notification => {
        if (!byAddon.has(notification.addonId)) return true
        return byAddon.get(notification.addonId)?.shows(notification) ?? false
      }
    }
  }

  /** What the started addon `ownerId` says of its pictures (AddonDefinition.pictures), made once; undefined when it says nothing. */
  pictureOwner (ownerId: string): PictureOwner | undefined {
    const runtime = this.runtimes.get(ownerId)
    if (runtime === undefined || !runtime.started || runtime.addon.definition.pictures === undefined) return undefined
    return (runtime.pictures ??= runtime.addon.definition.pictures(runtime.ctx))
  }

  /** The data map's tables of every started addon (see AddonDefinition.dataMap): those whose tables exist. */
  dataMap (): Array<MappedTable & { owner: string }> {
    return [...this.runtimes.values()].filter(r => r.started).flatMap(r => (r.addon.definition.dataMap ?? []).map(table => ({ ...table, owner: r.id })))
  }

  /**
   * What each started addon stores about `userId`, by addon id (for the user's export):
   * each part as its addon gives it, long lists still to be read as the export is written.
   * A failing addon fails the export (before it starts, or cut short while it is written).
   */
  async exportUser (userId: number, reader: MemberViewer): Promise<Record<string, StreamedObject>> {
    const parts = await Promise.all([...this.runtimes.values()].filter(r => r.started && r.addon.definition.exportUser !== undefined)
      .map(async r => [r.id, await r.addon.definition.exportUser!(r.ctx, userId, reader)] as const))
    return Object.fromEntries(parts)
  }

  /** Each started addon's rows of the `/privacy` page, in `locale` (an addon that fails to say is left out, and logged). */
  async privacyNotes (locale: string): Promise<PrivacyNote[]> {
    const lists = await Promise.all([...this.runtimes.values()].filter(r => r.started && r.addon.definition.privacyNotes !== undefined).map(async r => {
      try {
        return await r.addon.definition.privacyNotes!(r.ctx, locale)
      } catch (error) {
        this.options.services.log.error({ err: error, addon: r.id }, 'could not read the addon\'s privacy notes')
        return []
      }
    }))
    return lists.flat()
  }

  /** Inside `trx`, which deletes the account: each started addon takes out what it keeps of the user (one after the other; a failure undoes it all). */
  async eraseUser (userId: number, mode: ErasureMode, trx: Transaction): Promise<void> {
    for (const r of this.runtimes.values()) {
      if (r.started && r.addon.definition.eraseUser !== undefined) await r.addon.definition.eraseUser(r.ctx, userId, mode, trx)
    }
  }

  /** Before the server closes: listeners hear that the addons stop, then each addon stops. */
  async stop (): Promise<void> {
    this.stopping = true
    const { services } = this.options
    const running = [...this.runtimes.values()].filter(runtime => runtime.started)
    for (const runtime of running) services.events.emit(AddonStopping.name, { addonId: runtime.id })
    await services.events.drain()
    for (const runtime of running) {
      try {
        await runtime.addon.definition.stop?.(runtime.ctx)
      } catch (error) {
        services.log.error({ err: error, addon: runtime.id }, 'addon failed to stop cleanly')
      }
    }
  }
}

function ownerOf (addon: LoadedAddon): Owner {
  return { id: addon.manifest.id, permissions: addon.manifest.permissions, configDefaults: addon.manifest.config }
}
