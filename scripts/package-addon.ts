import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { ADDON_LAYOUT, DISCOVERED_FOLDERS, discoveredModules, resolveSourceFile } from '../src/host/addons/layout.js'

export interface PackageOptions {
  /** Holds `addon.json` and `lang/`. */
  readonly addonDir: string
  /** Holds the entry module and `endpoints/`, `listeners/`, `migrations/`. */
  readonly codeDir: string
  /** The folder to create: drop it into a host's addons folder. */
  readonly outDir: string
}

/**
 * Packages an addon as a self-contained folder: `addon.json`, `lang/`, and its code
 * compiled to ES modules with the SDK bundled in, keeping the folder layout the host
 * discovers (`endpoints/`, `listeners/`, `migrations/`, at the top and in feature folders). It needs nothing from the
 * host's node_modules, so it works wherever the host keeps its addons folder.
 */
export async function packageAddon ({ addonDir, codeDir, outDir }: PackageOptions): Promise<void> {
  const manifest = JSON.parse(await fs.readFile(path.join(addonDir, ADDON_LAYOUT.manifest), 'utf8')) as { entry: string }
  const entryPoints = [await resolveSourceFile(path.join(codeDir, manifest.entry))]
  for (const folder of DISCOVERED_FOLDERS) entryPoints.push(...await discoveredModules(codeDir, folder))
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
  await packageUi(path.join(codeDir, ADDON_LAYOUT.ui), path.join(outDir, ADDON_LAYOUT.ui))
  await fs.copyFile(path.join(addonDir, ADDON_LAYOUT.manifest), path.join(outDir, ADDON_LAYOUT.manifest))
  await fs.cp(path.join(addonDir, ADDON_LAYOUT.lang), path.join(outDir, ADDON_LAYOUT.lang), { recursive: true }).catch(error => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  })
  await fs.writeFile(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module', private: true }, null, 2) + '\n')
}

/**
 * The addon's browser modules (`ui/*.ts`: `panel.ts` for the panel, a theme widget…),
 * bundled for the browser, its stylesheets, and its classic scripts (`ui/classic/*.ts`:
 * one self-contained file each, for pages of other sites, which load a plain
 * `<script src>`; a stylesheet they import is its text). The host serves them at
 * `/addons/<id>/ui/`.
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
  const classic = (await fs.readdir(path.join(uiDir, 'classic')).catch(() => [] as string[]))
    .filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts')).map(f => path.join(uiDir, 'classic', f))
  if (classic.length > 0) {
    await build({
      entryPoints: classic, outdir: outDir, bundle: true, format: 'iife', platform: 'browser',
      target: 'es2022', minify: true, sourcemap: 'linked', loader: { '.css': 'text' }, logLevel: 'error'
    })
  }
  for (const css of files.filter(f => f.endsWith('.css'))) {
    await fs.mkdir(outDir, { recursive: true })
    await fs.copyFile(path.join(uiDir, css), path.join(outDir, css))
  }
}

const USAGE = 'usage: npm run package-addon -- <addon-dir> <out-dir> [--code-dir <dir>]\n' +
  '  <addon-dir> holds addon.json and lang/; the code is there too unless --code-dir names its folder'

/** `npm run package-addon -- src/my-addon addons/my-addon`: the same packaging `npm run build` gives Shoutbox. */
async function main (args: string[]): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({ args, options: { 'code-dir': { type: 'string' } }, allowPositionals: true, strict: true })
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`)
  }
  const [addonDir, outDir, ...rest] = parsed.positionals
  if (addonDir === undefined || outDir === undefined || rest.length > 0) fail(USAGE)
  try {
    await packageAddon({ addonDir, codeDir: parsed.values['code-dir'] ?? addonDir, outDir })
  } catch (error) {
    fail((error as Error).message)
  }
  process.stdout.write(`packaged ${addonDir} into ${outDir}\n`)
}

function fail (line: string): never {
  process.stderr.write(`package-addon: ${line}\n`)
  process.exit(1)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await main(process.argv.slice(2))
}
