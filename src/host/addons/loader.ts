import fs from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Value } from '@sinclair/typebox/value'
import {
  AddonManifestSchema, type Addon, type AddonManifest, type Endpoint, type Listener
} from '../../sdk/index.js'
import { ADDON, ENDPOINT, LISTENER, SDK_BASE } from '../../sdk/brands.js'
import type { NamedMigration } from '../database/migrate.js'

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

export interface LoadedAddon {
  readonly manifest: AddonManifest
  readonly source: AddonSource
  readonly definition: Addon
  readonly endpoints: ReadonlyArray<Discovered<Endpoint>>
  readonly listeners: ReadonlyArray<Discovered<Listener>>
  readonly migrations: readonly NamedMigration[]
}

/** A bad addon stops start-up with this one line: which addon, where, and what is wrong. */
export class AddonLoadError extends Error {}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
const ACCESS = new Set(['Api', 'LoggedInApi', 'PanelApi', 'SetupApi'])

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
    if (await exists(path.join(dir, 'addon.json'))) sources.push({ dir, codeDir: dir, uiDir: path.join(dir, 'ui'), builtin: false })
  }
  return sources
}

async function readManifest (source: AddonSource): Promise<AddonManifest> {
  const file = path.join(source.dir, 'addon.json')
  const label = `addon at ${source.dir}`
  let raw: unknown
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'))
  } catch (error) {
    throw new AddonLoadError(`${label}: ${file} is not readable JSON (${(error as Error).message})`)
  }
  const withDefaults = Value.Default(AddonManifestSchema, Value.Clone(raw))
  const problem = Value.Errors(AddonManifestSchema, withDefaults).First()
  if (problem !== undefined) {
    const id = typeof (raw as { id?: unknown })?.id === 'string' ? `addon "${(raw as { id: string }).id}"` : label
    const field = problem.path === '' ? 'the manifest' : `field ${problem.path.slice(1).replaceAll('/', '.')}`
    throw new AddonLoadError(`${id} (${file}): ${field} ${problem.message.toLowerCase()}`)
  }
  return withDefaults as AddonManifest
}

async function importAddon (source: AddonSource, manifest: AddonManifest): Promise<LoadedAddon> {
  const fail = (where: string, what: string): never => {
    throw new AddonLoadError(`addon "${manifest.id}" (${where}): ${what}`)
  }
  const entryFile = await resolveSourceFile(path.join(source.codeDir, manifest.entry))
  const entry = await importModule(entryFile, fail)
  const definition = entry.default as Addon | undefined
  if (typeof definition !== 'object' || definition === null || definition[ADDON] !== true) {
    fail(entryFile, 'the entry module must `export default defineAddon(...)` from the SDK')
  }
  const endpoints = await discover<Endpoint>(path.join(source.codeDir, 'endpoints'), ENDPOINT, fail)
  for (const { file, exportName, instance } of endpoints) {
    const where = `${file}, class ${exportName}`
    if (!METHODS.has(instance.method)) fail(where, `method must be one of ${[...METHODS].join(', ')}`)
    if (!ACCESS.has(instance.access)) fail(where, 'must extend Api, LoggedInApi, PanelApi or SetupApi')
    if (typeof instance.path !== 'string' || !instance.path.startsWith('/api/')) fail(where, 'path must start with /api/')
    if (typeof instance.schema !== 'object' || instance.schema === null) fail(where, 'schema must be an object')
    if (typeof instance.handle !== 'function') fail(where, 'handle must be a method')
  }
  const seen = new Set<string>()
  for (const { file, instance } of endpoints) {
    const route = `${instance.method} ${instance.path}`
    if (seen.has(route)) fail(file, `two endpoints declare ${route}`)
    seen.add(route)
  }
  const listeners = await discover<Listener>(path.join(source.codeDir, 'listeners'), LISTENER, fail)
  for (const { file, exportName, instance } of listeners) {
    if (typeof instance.event?.name !== 'string') fail(`${file}, class ${exportName}`, 'event must be an event from defineEvent()')
  }
  const migrations = await discoverMigrations(path.join(source.codeDir, 'migrations'), fail)
  return { manifest, source, definition: definition as Addon, endpoints, listeners, migrations }
}

/** Imports every module of a folder and instantiates each exported class carrying `brand`. */
async function discover<T> (dir: string, brand: symbol, fail: (where: string, what: string) => never): Promise<Array<Discovered<T>>> {
  const found: Array<Discovered<T>> = []
  for (const file of await modulesIn(dir)) {
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

async function discoverMigrations (dir: string, fail: (where: string, what: string) => never): Promise<NamedMigration[]> {
  const migrations: NamedMigration[] = []
  for (const file of await modulesIn(dir)) {
    const mod = await importModule(file, fail)
    if (typeof mod.up !== 'function') fail(file, 'a migration must export an `up(db)` function')
    migrations.push({ name: path.basename(file).replace(/\.(js|ts)$/, ''), up: mod.up as NamedMigration['up'] })
  }
  return migrations
}

/** Compiled `.js` modules; `.ts` too when the host itself runs from source (tests). */
async function modulesIn (dir: string): Promise<string[]> {
  let files: string[]
  try {
    files = await fs.readdir(dir)
  } catch {
    return []
  }
  return files
    .filter(f => (f.endsWith('.js') || (f.endsWith('.ts') && !f.endsWith('.d.ts'))))
    .sort()
    .map(f => path.join(dir, f))
}

async function importModule (file: string, fail: (where: string, what: string) => never): Promise<Record<string, unknown>> {
  try {
    return await import(pathToFileURL(file).href) as Record<string, unknown>
  } catch (error) {
    return fail(file, `cannot be imported: ${(error as Error).message.split('\n')[0]}`)
  }
}

/** The manifest names `.js` files; when the host runs from source (tests) the module is `.ts`. */
async function resolveSourceFile (file: string): Promise<string> {
  const typescript = file.replace(/\.js$/, '.ts')
  return !await exists(file) && await exists(typescript) ? typescript : file
}

async function exists (file: string): Promise<boolean> {
  try {
    await fs.access(file)
    return true
  } catch {
    return false
  }
}
