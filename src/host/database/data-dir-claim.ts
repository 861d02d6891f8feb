import { createHash } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs/promises'
import net from 'node:net'

/** Another process has the embedded database in `dir` open. */
export class DataDirInUse extends Error {
  constructor (readonly dir: string, readonly pid: string) {
    super(`the embedded database in ${dir} is open in another process (pid ${pid})`)
  }
}

/** The folders this process has claimed; it keeps them until it exits. */
const claimed = new Set<string>()

/**
 * Claims the embedded database's folder for this process, or throws DataDirInUse. Two
 * processes writing the same PGlite files corrupt them (an index, then the data), and
 * PGlite itself does not stop the second.
 *
 * The claim is a listening socket in Linux's abstract namespace, named after the
 * folder's real path: the kernel lets one process at a time listen on a name, and
 * releases it when that process ends, however it ends — so a killed host leaves no stale
 * lock behind. A second process connects to it and is told the holder's pid. Elsewhere
 * (macOS, Windows) there is no abstract namespace, and nothing is claimed; nor across
 * network namespaces (two containers sharing one volume).
 */
export async function claimDataDir (dir: string): Promise<void> {
  if (process.platform !== 'linux') return
  await fs.mkdir(dir, { recursive: true })
  const real = await fs.realpath(dir)
  if (claimed.has(real)) return
  const name = `\0shoutbox-embedded-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`
  const server = net.createServer(socket => socket.end(String(process.pid)))
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(name, resolve)
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    throw new DataDirInUse(dir, await holderOf(name))
  }
  server.unref()
  claimed.add(real)
}

/** The pid the claiming process answers with ("unknown" if it does not answer). */
async function holderOf (name: string): Promise<string> {
  const socket = net.connect(name)
  let answer = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => { answer += chunk })
  socket.setTimeout(2000, () => socket.destroy())
  await once(socket, 'close').catch(() => {})
  return /^\d+$/.test(answer) ? answer : 'unknown'
}
