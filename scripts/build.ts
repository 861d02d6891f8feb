/**
 * `npm run build`: the host and SDK compiled to dist/, the panel and theme bundled into
 * dist/ui/, and the Shoutbox addon packaged as dist/addon/shoutbox/ — the folder a site
 * owner drops into a host's addons folder.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { buildUi } from './build-ui.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const dist = path.join(root, 'dist')

await fs.rm(dist, { recursive: true, force: true })
// Each server-side file (src/ but the browser code in its ui/ folders, which build-ui
// bundles) compiled on its own to the same place under dist/. esbuild does it in about a
// second; tsc took several, checking the types again, which `npm run typecheck` (and
// `npm test`) does.
const sources = (await fs.readdir(path.join(root, 'src'), { recursive: true }))
  .filter(file => file.endsWith('.ts') && !file.split(path.sep).includes('ui'))
  .map(file => path.join(root, 'src', file))
await build({
  entryPoints: sources, outdir: dist, outbase: path.join(root, 'src'),
  format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'error'
})
await fs.cp(path.join(root, 'src/host/lang'), path.join(dist, 'host/lang'), { recursive: true })
await buildUi()
process.stdout.write('built dist/ (host), dist/ui/ (panel, theme) and dist/addon/shoutbox/ (the addon folder)\n')
