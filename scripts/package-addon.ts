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
  await packageUi(path.join(codeDir, 'ui'), path.join(outDir, 'ui'))
  await fs.copyFile(path.join(addonDir, 'addon.json'), path.join(outDir, 'addon.json'))
  await fs.cp(path.join(addonDir, 'lang'), path.join(outDir, 'lang'), { recursive: true }).catch(error => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  })
  await fs.writeFile(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module', private: true }, null, 2) + '\n')
}

/**
 * The addon's browser modules (`ui/*.ts`: `panel.ts` for the panel, a theme widget…),
 * bundled for the browser, and its stylesheets. The host serves them at `/addons/<id>/ui/`.
 */
async function packageUi (uiDir: string, outDir: string): Promise<void> {
  const files = await fs.readdir(uiDir).catch(() => [] as string[])
  const modules = files.filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts')).map(f => path.join(uiDir, f))
  if (modules.length > 0) {
    await build({
      entryPoints: modules, outdir: outDir, bundle: true, splitting: true, format: 'esm', platform: 'browser',
      target: 'es2022', minify: true, sourcemap: 'linked', chunkNames: 'chunks/[name]-[hash]', logLevel: 'error'
    })
  }
  for (const css of files.filter(f => f.endsWith('.css'))) {
    await fs.mkdir(outDir, { recursive: true })
    await fs.copyFile(path.join(uiDir, css), path.join(outDir, css))
  }
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
