import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageAddon } from '../../scripts/package-addon.js'
import type { Tap } from './types.js'

const FIXTURES = fileURLToPath(new URL('../fixtures/addons/', import.meta.url))

/** A temporary, empty addons folder, removed when the test ends. */
export async function tempAddonsDir (t: Tap): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-addons-'))
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Packages the fixture addon `name` the way a site owner receives an addon and drops
 * the folder into `addonsDir`; nothing in the host names it.
 */
export async function installFixture (name: string, addonsDir: string): Promise<string> {
  const source = path.join(FIXTURES, name)
  const outDir = path.join(addonsDir, name)
  await packageAddon({ addonDir: source, codeDir: source, outDir })
  return outDir
}

/** The greeter fixture installed into a fresh addons folder. */
export async function greeterAddonsDir (t: Tap): Promise<string> {
  const dir = await tempAddonsDir(t)
  await installFixture('greeter', dir)
  return dir
}
