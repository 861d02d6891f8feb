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
