import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { ConfigError, MIN_ADDRESS_SECRET_LENGTH, type HostConfig } from '../config.js'

/** The file in the data folder that holds the address secret when ADDRESS_SECRET is not set. */
export const ADDRESS_SECRET_FILE = 'address-secret'

/**
 * The secret the address keys are derived from (`AddressKeys`), kept outside the
 * database: `ADDRESS_SECRET` when set; otherwise the data folder's `address-secret`,
 * made at the first start (random, mode 0600). On PostgreSQL several processes share the
 * counters, so they must share the secret: with DATABASE_URL and neither, the host
 * refuses to start rather than make one that the other processes would not know.
 */
export async function loadAddressSecret (config: Pick<HostConfig, 'addressSecret' | 'databaseUrl' | 'dataDir'>): Promise<string> {
  if (config.addressSecret !== undefined) return config.addressSecret
  const file = path.join(config.dataDir, ADDRESS_SECRET_FILE)
  const existing = await readSecretFile(file)
  if (existing !== undefined) return existing
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(`with DATABASE_URL, every process must derive the same address keys: set ADDRESS_SECRET to one secret of ${MIN_ADDRESS_SECRET_LENGTH} characters or more (openssl rand -base64 32) in each, or put it in ${file} (mode 0600)`)
  }
  return createSecretFile(file)
}

/**
 * The secret in `file`, or undefined when there is none. A file others may read is
 * refused, not quietly fixed: whoever read it can tie a copy of the database's counters
 * to addresses, so the operator decides whether to replace it.
 */
async function readSecretFile (file: string): Promise<string | undefined> {
  const handle = await fs.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (handle === undefined) return undefined
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new ConfigError(`${file} must be a file holding the address secret`)
    // Windows keeps no such mode bits.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      throw new ConfigError(`${file} may be read by other users (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 it, and replace it if someone else may have read it`)
    }
    const secret = (await handle.readFile('utf8')).trim()
    if (secret.length < MIN_ADDRESS_SECRET_LENGTH) throw new ConfigError(`${file} must hold a secret of ${MIN_ADDRESS_SECRET_LENGTH} characters or more`)
    return secret
  } finally {
    await handle.close()
  }
}

/**
 * Makes the secret file all at once: written in full under a temporary name with mode
 * 0600, then linked into place, which fails if another process got there first (its
 * secret is then read instead). No process ever reads a half-written secret.
 */
async function createSecretFile (file: string): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.new`
  const handle = await fs.open(temporary, 'wx', 0o600)
  try {
    // The mode given to open is narrowed by the umask only; this makes it exactly 0600.
    await handle.chmod(0o600)
    await handle.writeFile(`${secret}\n`)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await fs.link(temporary, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return (await readSecretFile(file))!
  } finally {
    await fs.unlink(temporary)
  }
  await syncFolder(path.dirname(file))
  return secret
}

/** The folder's entry for the new file reaches the disk too (where a folder can be synced). */
async function syncFolder (folder: string): Promise<void> {
  const handle = await fs.open(folder, 'r').catch(() => undefined)
  if (handle === undefined) return
  await handle.sync().catch(() => {}).finally(() => handle.close())
}
