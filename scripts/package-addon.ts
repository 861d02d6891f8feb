import fs from 'node:fs/promises'
import path from 'node:path'
import { build } from 'esbuild'

export interface PackageOptions {
  /** Holds `addon.json` and `lang/`. */
  readonly addonDir: string
  /** Holds the entry module and `endpoints/`, `listeners/`, `migrations/`. */
  readonly codeDir: string
  /** The folder to create: drop it into a host's addons folder. */
  readonly outDir: string
}

const DISCOVERED = ['endpoints', 'listeners', 'migrations']

/**
 * Packages an addon as a self-contained folder: `addon.json`, `lang/`, and its code
 * compiled to ES modules with the SDK bundled in, keeping the folder layout the host
 * discovers (`endpoints/`, `listeners/`, `migrations/`). It needs nothing from the
 * host's node_modules, so it works wherever the host keeps its addons folder.
 */
export async function packageAddon ({ addonDir, codeDir, outDir }: PackageOptions): Promise<void> {
  const manifest = JSON.parse(await fs.readFile(path.join(addonDir, 'addon.json'), 'utf8')) as { entry: string }
  const entry = await sourceOf(path.join(codeDir, manifest.entry))
  const entryPoints = [entry]
  for (const folder of DISCOVERED) {
    const dir = path.join(codeDir, folder)
    const files = await fs.readdir(dir).catch(() => [] as string[])
    for (const file of files.filter(f => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts')).sort()) entryPoints.push(path.join(dir, file))
  }
  await fs.rm(outDir, { recursive: true, force: true })
  await build({
    entryPoints,
    outdir: outDir,
    outbase: codeDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Error codes come from class names: keep them through bundling.
    keepNames: true,
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    logLevel: 'error'
  })
  await fs.copyFile(path.join(addonDir, 'addon.json'), path.join(outDir, 'addon.json'))
  await fs.cp(path.join(addonDir, 'lang'), path.join(outDir, 'lang'), { recursive: true }).catch(error => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  })
  await fs.writeFile(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module', private: true }, null, 2) + '\n')
}

async function sourceOf (jsFile: string): Promise<string> {
  const ts = jsFile.replace(/\.js$/, '.ts')
  try {
    await fs.access(ts)
    return ts
  } catch {
    return jsFile
  }
}
