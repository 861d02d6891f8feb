import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'

const root = fileURLToPath(new URL('../../', import.meta.url))
const pgliteVersion = JSON.parse(await fs.readFile(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version as string
export const IMAGE = path.join(root, 'node_modules/.cache/shoutbox-tests', `pglite-${pgliteVersion}.tar.gz`)

/**
 * A fresh embedded database costs an initdb (several seconds); a dumped one loads in about
 * one. The first test process to need it makes the image; the rest load it.
 */
export async function ensureImage (): Promise<Blob> {
  try {
    return new Blob([await fs.readFile(IMAGE)])
  } catch {
    const db = await PGlite.create()
    const dump = await db.dumpDataDir('gzip')
    await db.close()
    await fs.mkdir(path.dirname(IMAGE), { recursive: true })
    const partial = `${IMAGE}.${process.pid}.partial`
    await fs.writeFile(partial, Buffer.from(await dump.arrayBuffer()))
    await fs.rename(partial, IMAGE)
    return dump
  }
}

export async function freshPglite (): Promise<PGlite> {
  return PGlite.create({ loadDataDir: await ensureImage() })
}
