/**
 * `npm run build`: the host and SDK compiled to dist/, the panel and theme bundled into
 * dist/ui/, and the Shoutbox addon packaged as dist/addon/shoutbox/ — the folder a site
 * owner drops into a host's addons folder.
 *
 * It builds beside dist/, in a folder of its own, and then puts the result in dist/'s
 * place: two builds at once (two `npm run dev` in one checkout) each make a whole tree,
 * and the last one to finish is dist/. A host already running keeps the files it opened.
 * `--out <folder>` builds there instead of dist/.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { buildUi } from './build-ui.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const outFlag = process.argv.indexOf('--out')
const dist = outFlag === -1 ? path.join(root, 'dist') : path.resolve(process.argv[outFlag + 1] ?? 'dist')
const building = `${dist}.building-${process.pid}`

await fs.rm(building, { recursive: true, force: true })
try {
  // Each server-side file (src/ but the browser code in its ui/ folders, which build-ui
  // bundles) compiled on its own to the same place. esbuild does it in about a second;
  // tsc took several, checking the types again, which `npm run typecheck` (and `npm
  // test`) does.
  const sources = (await fs.readdir(path.join(root, 'src'), { recursive: true }))
    .filter(file => file.endsWith('.ts') && !file.split(path.sep).includes('ui'))
    .map(file => path.join(root, 'src', file))
  await build({
    entryPoints: sources, outdir: building, outbase: path.join(root, 'src'),
    format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'error',
    // Node 20 reads `with { type: 'json' }` (from 20.10); esbuild's node20 would drop it.
    supported: { 'import-attributes': true }
  })
  await fs.cp(path.join(root, 'src/host/lang'), path.join(building, 'host/lang'), { recursive: true })
  await buildUi(building)
  await putInPlace(building, dist)
} finally {
  await fs.rm(building, { recursive: true, force: true })
}
process.stdout.write(`built ${path.relative(root, dist) || '.'}/ (host), ${path.relative(root, dist)}/ui/ (panel, theme) and ${path.relative(root, dist)}/addon/shoutbox/ (the addon folder)\n`)

/**
 * Moves the folder `built` to `target`, whose earlier tree is moved aside and removed.
 * A rename cannot replace a folder that holds files: when another build put its tree
 * there between the two renames, that one is moved aside in turn, and this one tried again.
 */
async function putInPlace (built: string, target: string): Promise<void> {
  const aside = `${target}.old-${process.pid}`
  for (let attempt = 1; ; attempt++) {
    await fs.rm(aside, { recursive: true, force: true })
    try {
      await fs.rename(target, aside)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    try {
      await fs.rename(built, target)
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt === 20) throw error
    }
  }
  await fs.rm(aside, { recursive: true, force: true })
}
