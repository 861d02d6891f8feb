/**
 * `npm run build`: the host and SDK compiled to dist/, the panel and theme bundled into
 * dist/ui/, and the Shoutbox addon packaged as dist/addon/shoutbox/ — the folder a site
 * owner drops into a host's addons folder.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildUi } from './build-ui.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const dist = path.join(root, 'dist')

await fs.rm(dist, { recursive: true, force: true })
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
await fs.cp(path.join(root, 'src/host/lang'), path.join(dist, 'host/lang'), { recursive: true })
await buildUi()
process.stdout.write('built dist/ (host), dist/ui/ (panel, theme) and dist/addon/shoutbox/ (the addon folder)\n')
