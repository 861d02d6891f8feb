import fs from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Value } from '@sinclair/typebox/value'
import {
  ACCESS_CLASSES, AddonManifestSchema, HTTP_METHODS, type Addon, type AddonManifest, type Endpoint, type Listener
} from '../../sdk/index.js'
import { ADDON, ENDPOINT, LISTENER, SDK_BASE } from '../../sdk/brands.js'
import type { NamedMigration } from '../database/migrate.js'
import { ADDON_LAYOUT, discoveredModules, exists, moduleName, resolveSourceFile } from './layout.js'

/** Where an addon lives: its manifest and strings, and the folder of its compiled code. */
export interface AddonSource {
  /** Holds `addon.json` and `lang/`. */
  readonly dir: string
  /** Holds the entry module and the `endpoints/`, `listeners/`, `migrations/` folders. */
  readonly codeDir: string
  /** Its built browser modules and styles (`panel.js`, a theme widget…), served at `/addons/<id>/ui/`. */
  readonly uiDir: string
  /** The repository's own copy; an addon with the same id in the addons folder replaces it. */
  readonly builtin: boolean
}

export interface Discovered<T> {
  readonly file: string
  readonly exportName: string
  readonly instance: T
}

/** What the loader finds in a code folder laid out as ADDON_LAYOUT says. */
export interface DiscoveredCode {
  readonly endpoints: ReadonlyArray<Discovered<Endpoint>>
  readonly listeners: ReadonlyArray<Discovered<Listener>>
  readonly migrations: readonly NamedMigration[]
}

export interface LoadedAddon extends DiscoveredCode {
  readonly manifest: AddonManifest
  readonly source: AddonSource
  readonly definition: Addon
}

/** The id the host's own entries, strings and notices are owned by; no addon may take it. */
export const HOST_ID = 'host'

/** A bad addon stops start-up with this one line: which addon, where, and what is wrong. */
export class AddonLoadError extends Error {}

const METHODS = new Set<string>(HTTP_METHODS)
const ACCESS = new Set<string>(ACCESS_CLASSES)

type Fail = (where: string, what: string) => never

/**
 * Phase one of loading: read and validate every manifest, import every module and check
 * its shape. Nothing is registered here, so one bad addon fails with a clear line before
 * the host has started anything.
 */
export async function loadAddons (addonsDir: string, builtins: readonly AddonSource[]): Promise<LoadedAddon[]> {
  const sources = [...await sourcesIn(addonsDir), ...builtins]
  const manifests = await Promise.all(sources.map(async source => ({ source, manifest: await readManifest(source) })))
  const chosen = new Map<string, { source: AddonSource, manifest: AddonManifest }>()
  for (const candidate of manifests) {
    const existing = chosen.get(candidate.manifest.id)
    if (existing === undefined) {
      chosen.set(candidate.manifest.id, candidate)
    } else if (!existing.source.builtin && !candidate.source.builtin) {
      throw new AddonLoadError(`addon "${candidate.manifest.id}" is installed twice: ${existing.source.dir} and ${candidate.source.dir}`)
    }
    // Otherwise `existing` is the addons folder's copy, which wins over the built-in one.
  }
  const loaded: LoadedAddon[] = []
  for (const { source, manifest } of chosen.values()) loaded.push(await importAddon(source, manifest))
  return loaded
}

async function sourcesIn (addonsDir: string): Promise<AddonSource[]> {
  let entries
  try {
    entries = await fs.readdir(addonsDir, { withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw new AddonLoadError(`addons folder ${addonsDir}: ${(error as Error).message}`)
  }
  const sources: AddonSource[] = []
  for (const entry of entries.filter(e => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(addonsDir, entry.name)
    if (await exists(path.join(dir, ADDON_LAYOUT.manifest))) {
      sources.push({ dir, codeDir: dir, uiDir: path.join(dir, ADDON_LAYOUT.ui), builtin: false })
    }
  }
  return sources
}

async function readManifest (source: AddonSource): Promise<AddonManifest> {
  const file = path.join(source.dir, ADDON_LAYOUT.manifest)
  const label = `addon at ${source.dir}`
  let raw: unknown
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'))
  } catch (error) {
    throw new AddonLoadError(`${label}: ${file} is not readable JSON (${(error as Error).message})`)
  }
  const withDefaults = Value.Default(AddonManifestSchema, Value.Clone(raw))
  const problem = Value.Errors(AddonManifestSchema, withDefaults).First()
  const id = typeof (raw as { id?: unknown })?.id === 'string' ? `addon "${(raw as { id: string }).id}"` : label
  if (problem !== undefined) {
    const field = problem.path === '' ? 'the manifest' : `field ${problem.path.slice(1).replaceAll('/', '.')}`
    throw new AddonLoadError(`${id} (${file}): ${field} ${problem.message.toLowerCase()}`)
  }
  const manifest = withDefaults as AddonManifest
  if (manifest.id === HOST_ID) throw new AddonLoadError(`${id} (${file}): field id "${HOST_ID}" names the host; choose another id`)
  const entry = path.resolve(source.codeDir, manifest.entry)
  if (!entry.startsWith(path.resolve(source.codeDir) + path.sep)) {
    throw new AddonLoadError(`${id} (${file}): field entry must name a module inside the addon's folder`)
  }
  return manifest
}

async function importAddon (source: AddonSource, manifest: AddonManifest): Promise<LoadedAddon> {
  const fail: Fail = (where, what) => {
    throw new AddonLoadError(`addon "${manifest.id}" (${where}): ${what}`)
  }
  const entryFile = await resolveSourceFile(path.join(source.codeDir, manifest.entry))
  const entry = await importModule(entryFile, fail)
  const definition = entry.default as Addon | undefined
  if (typeof definition !== 'object' || definition === null || definition[ADDON] !== true) {
    fail(entryFile, 'the entry module must `export default defineAddon(...)` from the SDK')
  }
  return { manifest, source, definition: definition as Addon, ...await discoverCode(source.codeDir, fail, { host: false }) }
}

/**
 * Two owners declaring the same route would fail deep inside Fastify: refused here, in
 * one line naming both. (Within one owner, `discoverCode` already refuses it.)
 */
export function checkRoutes (host: DiscoveredCode, addons: readonly LoadedAddon[]): void {
  const owners = new Map<string, string>()
  const claim = (owner: string, endpoints: DiscoveredCode['endpoints']): void => {
    for (const { file, instance } of endpoints) {
      const route = `${instance.method} ${instance.path}`
      const other = owners.get(route)
      if (other !== undefined) throw new AddonLoadError(`${owner} (${file}): ${route} is already declared by ${other}`)
      owners.set(route, owner)
    }
  }
  claim('the host', host.endpoints)
  for (const addon of addons) claim(`addon "${addon.manifest.id}"`, addon.endpoints)
}

/**
 * The host's own endpoints, listeners and migrations, found in its code folder exactly
 * as an addon's are: the host is addon zero.
 */
export async function loadHostCode (codeDir: string): Promise<DiscoveredCode> {
  return discoverCode(codeDir, (where, what) => {
    throw new AddonLoadError(`the host (${where}): ${what}`)
  }, { host: true })
}

/** Imports and checks every endpoint, listener and migration of a code folder. */
async function discoverCode (codeDir: string, fail: Fail, { host }: { host: boolean }): Promise<DiscoveredCode> {
  const endpoints = await discover<Endpoint>(await discoveredModules(codeDir, ADDON_LAYOUT.endpoints), ENDPOINT, fail)
  const seen = new Set<string>()
  for (const { file, exportName, instance } of endpoints) {
    checkEndpoint(instance, `${file}, class ${exportName}`, fail, host)
    const route = `${instance.method} ${instance.path}`
    if (seen.has(route)) fail(file, `two endpoints declare ${route}`)
    seen.add(route)
  }
  const listeners = await discover<Listener>(await discoveredModules(codeDir, ADDON_LAYOUT.listeners), LISTENER, fail)
  for (const { file, exportName, instance } of listeners) {
    if (typeof instance.event?.name !== 'string') fail(`${file}, class ${exportName}`, 'event must be an event from defineEvent()')
  }
  const migrations = await discoverMigrations(await discoveredModules(codeDir, ADDON_LAYOUT.migrations), fail)
  return { endpoints, listeners, migrations }
}

function checkEndpoint (endpoint: Endpoint, where: string, fail: Fail, host: boolean): void {
  if (!METHODS.has(endpoint.method)) fail(where, `method must be one of ${HTTP_METHODS.join(', ')}`)
  if (!ACCESS.has(endpoint.access)) fail(where, `must extend ${ACCESS_CLASSES.join(', ')}`)
  if (typeof endpoint.path !== 'string' || !endpoint.path.startsWith('/api/')) fail(where, 'path must start with /api/')
  if (typeof endpoint.schema !== 'object' || endpoint.schema === null) fail(where, 'schema must be an object')
  if (typeof endpoint.handle !== 'function') fail(where, 'handle must be a method')
  if (endpoint.availableBeforeSetup === true && !host) fail(where, 'availableBeforeSetup is for the host\'s own endpoints')
  if (endpoint.cache !== undefined) {
    if (endpoint.access !== 'Api' || endpoint.method !== 'GET') fail(where, 'cache is for public GET endpoints (Api) only')
    if (endpoint.schema.params !== undefined || endpoint.schema.querystring !== undefined || endpoint.path.includes(':')) {
      fail(where, 'a cached answer must not depend on path or query parameters')
    }
    if (typeof endpoint.cache.topic !== 'string' || endpoint.cache.topic === '') fail(where, 'cache.topic must name a cluster topic')
    if (endpoint.cache.update !== undefined && typeof endpoint.cache.update !== 'function') fail(where, 'cache.update must be a function')
  }
}

/** Imports each of `files` and instantiates each exported class carrying `brand`. */
async function discover<T> (files: readonly string[], brand: symbol, fail: Fail): Promise<Array<Discovered<T>>> {
  const found: Array<Discovered<T>> = []
  for (const file of files) {
    const mod = await importModule(file, fail)
    for (const [exportName, value] of Object.entries(mod)) {
      if (typeof value !== 'function') continue
      const cls = value as unknown as (new () => T) & Record<symbol, unknown>
      if (cls[brand] !== true || Object.hasOwn(cls, SDK_BASE)) continue
      let instance: T
      try {
        instance = new cls()
      } catch (error) {
        fail(`${file}, class ${exportName}`, `cannot be constructed without arguments (${(error as Error).message})`)
      }
      found.push({ file, exportName, instance: instance! })
    }
  }
  return found
}

/** The migrations of `files`, in order of name; two of one name (in two feature folders) fail the addon. */
async function discoverMigrations (files: readonly string[], fail: Fail): Promise<NamedMigration[]> {
  const migrations: NamedMigration[] = []
  for (const file of files) {
    const mod = await importModule(file, fail)
    if (typeof mod.up !== 'function') fail(file, 'a migration must export an `up(db)` function')
    if (migrations.some(migration => migration.name === moduleName(file))) fail(file, `another migration is named ${moduleName(file)}`)
    migrations.push({ name: moduleName(file), up: mod.up as NamedMigration['up'] })
  }
  return migrations
}

async function importModule (file: string, fail: Fail): Promise<Record<string, unknown>> {
  try {
    return await import(pathToFileURL(file).href) as Record<string, unknown>
  } catch (error) {
    return fail(file, `cannot be imported: ${(error as Error).message.split('\n')[0]}`)
  }
}
