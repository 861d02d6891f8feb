/**
 * `npm run build`: the host and SDK compiled to dist/, and the Shoutbox addon packaged
 * as dist/addon/shoutbox/ — the folder a site owner drops into a host's addons folder.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageAddon } from './package-addon.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const dist = path.join(root, 'dist')

await fs.rm(dist, { recursive: true, force: true })
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
await fs.cp(path.join(root, 'src/host/lang'), path.join(dist, 'host/lang'), { recursive: true })
await packageAddon({ addonDir: root, codeDir: path.join(root, 'src/shoutbox'), outDir: path.join(dist, 'addon/shoutbox') })
process.stdout.write(`built dist/ and the addon folder dist/addon/shoutbox/\n`)
