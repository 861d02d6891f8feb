import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * How an addon's folder is laid out: written once, read by the loader (which discovers
 * the code) and by the packager (which keeps the layout when it compiles an addon). The
 * host's own code (`src/host/`) follows it too: it is "addon zero".
 */
export const ADDON_LAYOUT = {
  manifest: 'addon.json',
  /** `<locale>.json` string files. */
  lang: 'lang',
  /** Endpoint classes, found and registered with no registration call. */
  endpoints: 'endpoints',
  /** Listener classes for events. */
  listeners: 'listeners',
  /** Migration modules, run once each, in order of file name. */
  migrations: 'migrations',
  /** Browser modules and styles, served at `/addons/<id>/ui/`. */
  ui: 'ui'
} as const

/** The folders whose modules are discovered. */
export const DISCOVERED_FOLDERS = [ADDON_LAYOUT.endpoints, ADDON_LAYOUT.listeners, ADDON_LAYOUT.migrations] as const

/** Compiled `.js` modules; `.ts` too when the host itself runs from source (tests). */
function isModuleFile (file: string): boolean {
  return file.endsWith('.js') || (file.endsWith('.ts') && !file.endsWith('.d.ts'))
}

/** The modules of a folder, in name order; none when it does not exist. */
export async function modulesIn (dir: string): Promise<string[]> {
  const files = await fs.readdir(dir).catch(() => [] as string[])
  return files.filter(isModuleFile).sort().map(f => path.join(dir, f))
}

/** Folders of an addon's code never searched for discovered modules: browser code, the packager's chunks. */
const NOT_SEARCHED = new Set([ADDON_LAYOUT.ui, 'chunks', 'node_modules'])

/**
 * The modules of every `folder` (endpoints, listeners or migrations) in an addon's code:
 * the one at its top and each feature folder's (`moderation/endpoints/`, at any depth), as
 * @fastify/autoload searches subfolders — so an endpoint lives beside its feature. In
 * order of file name (a migration's name is its place in the order), then of path.
 */
export async function discoveredModules (codeDir: string, folder: string): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      const sub = path.join(dir, entry.name)
      // A folder linked in (a test's copy of the host) counts as one.
      const isFolder = entry.isDirectory() || (entry.isSymbolicLink() && await fs.stat(sub).then(stat => stat.isDirectory(), () => false))
      if (!isFolder || (depth === 0 && NOT_SEARCHED.has(entry.name)) || entry.name === 'node_modules') continue
      if (entry.name === folder) found.push(...await modulesIn(sub))
      else await walk(sub, depth + 1)
    }
  }
  await walk(codeDir, 0)
  return found.sort((a, b) => path.basename(a).localeCompare(path.basename(b)) || a.localeCompare(b))
}

/** A module's name without its extension (a migration's name). */
export function moduleName (file: string): string {
  return path.basename(file).replace(/\.(js|ts)$/, '')
}

/** A manifest names `.js` files; when the code is still TypeScript source (tests, packaging) the module is `.ts`. */
export async function resolveSourceFile (jsFile: string): Promise<string> {
  const typescript = jsFile.replace(/\.js$/, '.ts')
  return !await exists(jsFile) && await exists(typescript) ? typescript : jsFile
}

export async function exists (file: string): Promise<boolean> {
  return fs.access(file).then(() => true, () => false)
}
