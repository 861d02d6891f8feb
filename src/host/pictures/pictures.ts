import { createHash, randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { Viewer, type Database, type PictureKind, type PictureOwner, type Pictures, type StoredPicture } from '../../sdk/index.js'
import { UPLOADS_TABLE } from '../database/tables.js'
import { reencode, ReencodeGate, type Reencoded } from './reencode.js'

/** The owner id of the host's own pictures (the site's logo). */
export const HOST_PICTURES = 'host'

const HOUR_MS = 60 * 60 * 1000
/** How often each process looks for pictures no owner uses (those an hour old or more). */
const SWEEP_EVERY_MS = 15 * 60 * 1000
const SWEEP_BATCH = 500
const FIRST_SWEEP_MS = 60 * 1000

/**
 * Pictures' bytes kept in memory, the least recently served dropped first past this
 * many bytes. A picture's name is its bytes' hash, so what is kept is never out of date;
 * and read from the embedded database a 250 KB picture costs 20–30 ms of the one core.
 */
const BYTES_KEPT = 64 * 1024 * 1024
/** A picture larger than this is read each time rather than crowd out the others. */
const LARGEST_KEPT = 8 * 1024 * 1024
/**
 * Pictures decoded at once: one a core, less the one the event loop needs to go on
 * answering meanwhile (each decoding is one libvips thread); one at the least.
 */
const DECODING_AT_ONCE = Math.max(1, os.availableParallelism() - 1)
/** Pictures whose owners are kept at most (see HostPictures.uploadsOf). */
const OWNERS_KEPT = 10_000

/** A picture's file name at `/uploads/`: its SHA-256, then `.webp` or `.thumb.webp`. */
const FILE_NAME = /^([0-9a-f]{64})(\.thumb)?\.webp$/

export const pictureUrl = (sha256: string): string => `/uploads/${sha256}.webp`
export const thumbnailUrl = (sha256: string): string => `/uploads/${sha256}.thumb.webp`

/** Which picture a file name at `/uploads/` names; undefined for any other name. */
export function parsePictureName (name: string): { sha256: string, thumb: boolean } | undefined {
  const match = FILE_NAME.exec(name)
  return match === null ? undefined : { sha256: match[1]!, thumb: match[2] !== undefined }
}

interface UploadRow {
  id: number | string
  owner_id: string
  kind: PictureKind
  user_id: number | null
  sha256: string
  width: number
  height: number
  created_at: number | string
}

const COLUMNS = ['id', 'owner_id', 'kind', 'user_id', 'sha256', 'width', 'height', 'created_at'] as const

const stored = (row: UploadRow): StoredPicture => ({
  id: Number(row.id),
  sha256: row.sha256,
  width: row.width,
  height: row.height,
  url: pictureUrl(row.sha256),
  thumbUrl: thumbnailUrl(row.sha256),
  kind: row.kind,
  userId: row.user_id,
  createdAt: Number(row.created_at)
})

export interface PicturesOptions {
  /** `UPLOADS_DIR`: the pictures' bytes in files there; unset → in the database. */
  readonly dir?: string | undefined
  /** Pictures decoded at once by this process (one a core, less the event loop's: see DECODING_AT_ONCE). */
  readonly workers?: number
  /** Pictures waiting to be decoded beyond those; past that, 503. */
  readonly waiting?: number
}

/**
 * The host's pictures (see the SDK's `Pictures`): each upload decoded and written again
 * through a bounded gate, stored in the `uploads` table (its bytes there or in
 * UPLOADS_DIR), served at `/uploads/` to whoever its owner lets see it, and swept once
 * no owner uses it an hour after its upload.
 */
export class HostPictures {
  private readonly gate: ReencodeGate
  private owners: (ownerId: string) => PictureOwner | undefined = () => undefined
  private timer: NodeJS.Timeout | undefined
  private first: NodeJS.Timeout | undefined
  private sweeping: Promise<void> | undefined
  /** Who owns each picture served lately (see uploadsOf); forgotten past OWNERS_KEPT, and as this process adds or removes uploads. */
  private readonly ownersKept = new Map<string, ReadonlyArray<Pick<UploadRow, 'owner_id' | 'kind'>>>()
  /** Bytes by file name (`<sha256>` or `<sha256>.thumb`), least recently served first; see BYTES_KEPT. */
  private readonly kept = new Map<string, Buffer>()
  private keptBytes = 0

  constructor (private readonly db: Database, private readonly log: FastifyBaseLogger, private readonly options: PicturesOptions = {}, private readonly now: () => number = Date.now) {
    this.gate = new ReencodeGate(options.workers ?? DECODING_AT_ONCE, options.waiting ?? 16)
  }

  /** Who says what of each owner's pictures (the addons' `pictures`), once they are loaded. */
  ownedThrough (owners: (ownerId: string) => PictureOwner | undefined): void {
    this.owners = owners
  }

  /** The SDK's view, for the owner `ownerId`. */
  forOwner (ownerId: string): Pictures {
    return {
      accept: async (bytes, owner) => this.accept(ownerId, bytes, owner),
      ownedBy: async (userId, ids, trx) => this.ownedBy(ownerId, userId, ids, trx),
      uploadedBy: async userId => this.uploadedBy(ownerId, userId),
      remove: async (ids, trx) => this.remove(ownerId, ids, trx)
    }
  }

  async accept (ownerId: string, bytes: Buffer, { userId, kind }: { readonly userId: number | null, readonly kind: PictureKind }): Promise<StoredPicture> {
    const picture: Reencoded = await this.gate.run(async () => reencode(bytes))
    const sha256 = createHash('sha256').update(picture.image).digest('hex')
    const dir = this.options.dir
    if (dir !== undefined) {
      await writeOnce(path.join(dir, `${sha256}.webp`), picture.image)
      await writeOnce(path.join(dir, `${sha256}.thumb.webp`), picture.thumb)
    }
    this.ownersKept.delete(sha256)
    // What was just uploaded is what its shout's readers will ask for first.
    this.keep(sha256, false, picture.image)
    this.keep(sha256, true, picture.thumb)
    const [row] = await this.db(UPLOADS_TABLE).insert({
      owner_id: ownerId,
      kind,
      user_id: userId,
      sha256,
      width: picture.width,
      height: picture.height,
      size: picture.image.length,
      image: dir === undefined ? picture.image : null,
      thumb: dir === undefined ? picture.thumb : null,
      created_at: this.now()
    }).returning<UploadRow[]>([...COLUMNS])
    return stored(row!)
  }

  async ownedBy (ownerId: string, userId: number, ids: readonly number[], trx: Database = this.db): Promise<StoredPicture[]> {
    if (ids.length === 0) return []
    const rows = await trx(UPLOADS_TABLE).select<UploadRow[]>(...COLUMNS)
      .where({ owner_id: ownerId, user_id: userId, kind: 'picture' }).whereIn('id', [...ids])
    const byId = new Map(rows.map(row => [Number(row.id), stored(row)]))
    return ids.flatMap(id => byId.get(id) ?? [])
  }

  async uploadedBy (ownerId: string, userId: number): Promise<StoredPicture[]> {
    const rows = await this.db(UPLOADS_TABLE).select<UploadRow[]>(...COLUMNS).where({ owner_id: ownerId, user_id: userId }).orderBy('id')
    return rows.map(stored)
  }

  async remove (ownerId: string, ids: readonly number[], trx: Database = this.db): Promise<void> {
    if (ids.length === 0) return
    await trx(UPLOADS_TABLE).where('owner_id', ownerId).whereIn('id', [...ids]).delete()
    this.ownersKept.clear()
  }

  /**
   * The bytes of the picture (or thumbnail) `sha256`, when `viewer` may see it: a logo
   * always; a picture while its owner says so. Undefined otherwise, and for a name no upload
   * has. `everyone` tells whether a visitor may see it too (a shared cache may keep it).
   */
  async serve (sha256: string, thumb: boolean, viewer: Viewer): Promise<{ bytes: Buffer, everyone: boolean } | undefined> {
    let rows = await this.uploadsOf(sha256)
    if (rows.length === 0) return undefined
    const shown = async (as: Viewer): Promise<boolean> => {
      for (const row of rows) {
        if (row.kind === 'logo') return true
        const owner = this.owners(row.owner_id)
        if (owner !== undefined && await owner.visible(sha256, as)) return true
      }
      return false
    }
    if (!await shown(viewer)) {
      // Refused on owners kept here: read them again, in case another process has given
      // the same bytes another upload since (the site's logo, say).
      if (!this.ownersKept.delete(sha256)) return undefined
      rows = await this.uploadsOf(sha256)
      if (!await shown(viewer)) return undefined
    }
    const bytes = await this.bytesOf(sha256, thumb)
    if (bytes === undefined) return undefined
    return { bytes, everyone: viewer.signedIn ? await shown(Viewer.visitor) : true }
  }

  /**
   * The uploads of `sha256`, as far as serving needs them (which owners to ask). Kept for
   * pictures no logo is among: whoever owns a picture decides who sees it, and says no
   * once nothing of theirs shows it — so an upload removed on another process is never
   * served for a row kept here. A logo's rows are read each time (a replaced logo goes
   * at once, and a logo is asked for by its name alone).
   */
  private async uploadsOf (sha256: string): Promise<ReadonlyArray<Pick<UploadRow, 'owner_id' | 'kind'>>> {
    const known = this.ownersKept.get(sha256)
    if (known !== undefined) return known
    const rows = await this.db(UPLOADS_TABLE).select<Array<Pick<UploadRow, 'owner_id' | 'kind'>>>('owner_id', 'kind').where({ sha256 })
    if (rows.length > 0 && rows.every(row => row.kind === 'picture')) {
      if (this.ownersKept.size >= OWNERS_KEPT) this.ownersKept.clear()
      this.ownersKept.set(sha256, rows)
    }
    return rows
  }

  /** The bytes of a picture some owner lets be seen: kept in memory, or read and then kept. */
  private async bytesOf (sha256: string, thumb: boolean): Promise<Buffer | undefined> {
    const name = `${sha256}${thumb ? '.thumb' : ''}`
    const known = this.kept.get(name)
    if (known !== undefined) {
      // Served again: now the most recent.
      this.kept.delete(name)
      this.kept.set(name, known)
      return known
    }
    const dir = this.options.dir
    const bytes = dir !== undefined
      ? await fs.readFile(path.join(dir, `${name}.webp`)).catch(() => undefined)
      : (await this.db(UPLOADS_TABLE).where({ sha256 }).whereNotNull(thumb ? 'thumb' : 'image').first<{ bytes: Buffer } | undefined>(`${thumb ? 'thumb' : 'image'} as bytes`))?.bytes
    if (bytes !== undefined) this.keep(sha256, thumb, bytes)
    return bytes
  }

  private keep (sha256: string, thumb: boolean, bytes: Buffer): void {
    const name = `${sha256}${thumb ? '.thumb' : ''}`
    if (bytes.length > LARGEST_KEPT || this.kept.has(name)) return
    this.kept.set(name, bytes)
    this.keptBytes += bytes.length
    for (const [oldest, kept] of this.kept) {
      if (this.keptBytes <= BYTES_KEPT) break
      this.kept.delete(oldest)
      this.keptBytes -= kept.length
    }
  }

  /** Sweeps every SWEEP_EVERY_MS, the first a minute after the start (not while the process starts up). */
  start (): void {
    const run = (): void => {
      this.sweeping = this.sweep().then(() => {}, error => {
        this.log.error({ err: error }, 'unused pictures could not be swept')
      })
    }
    this.first = setTimeout(run, FIRST_SWEEP_MS)
    this.first.unref()
    this.timer = setInterval(run, SWEEP_EVERY_MS)
    this.timer.unref()
  }

  async stop (): Promise<void> {
    clearTimeout(this.first)
    clearInterval(this.timer)
    await this.sweeping
  }

  /**
   * Removes the pictures an hour old or more that no owner uses (never a logo: whoever sets
   * a new one removes the old), a batch at a time; then, with UPLOADS_DIR, the files no
   * upload names any more. Two processes sweeping at once delete each row once.
   */
  async sweep (): Promise<number> {
    const before = this.now() - HOUR_MS
    let removed = 0
    let after = 0
    for (;;) {
      const rows = await this.db(UPLOADS_TABLE).select<Array<Pick<UploadRow, 'id' | 'owner_id' | 'sha256'>>>('id', 'owner_id', 'sha256')
        .where('kind', 'picture').where('created_at', '<', before).where('id', '>', after).orderBy('id').limit(SWEEP_BATCH)
      if (rows.length === 0) break
      after = Number(rows.at(-1)!.id)
      const byOwner = new Map<string, typeof rows>()
      for (const row of rows) byOwner.set(row.owner_id, [...byOwner.get(row.owner_id) ?? [], row])
      for (const [ownerId, owned] of byOwner) {
        // An owner that cannot say (not started here, disabled, gone) keeps its pictures: a
        // disabled addon's data is kept, and a picture is never removed on a guess.
        const owner = this.owners(ownerId)
        if (owner === undefined) continue
        const used = await owner.inUse([...new Set(owned.map(row => row.sha256))])
        const unused = owned.filter(row => !used.has(row.sha256)).map(row => Number(row.id))
        if (unused.length > 0) {
          removed += (await this.db(UPLOADS_TABLE).whereIn('id', unused).delete().returning('id')).length
          this.ownersKept.clear()
        }
      }
    }
    if (this.options.dir !== undefined) await this.sweepFiles(this.options.dir, before)
    return removed
  }

  private async sweepFiles (dir: string, before: number): Promise<void> {
    const names = await fs.readdir(dir).catch(() => [] as string[])
    const shas = [...new Set(names.flatMap(name => parsePictureName(name)?.sha256 ?? []))]
    for (let i = 0; i < shas.length; i += SWEEP_BATCH) {
      const batch = shas.slice(i, i + SWEEP_BATCH)
      const named = new Set((await this.db(UPLOADS_TABLE).distinct('sha256').whereIn('sha256', batch)).map((row: { sha256: string }) => row.sha256))
      for (const sha of batch.filter(sha => !named.has(sha))) {
        for (const file of [`${sha}.webp`, `${sha}.thumb.webp`]) {
          const full = path.join(dir, file)
          // A file younger than an hour may belong to an upload whose row is being written.
          const stat = await fs.stat(full).catch(() => undefined)
          if (stat !== undefined && stat.mtimeMs < before) await fs.rm(full, { force: true })
        }
      }
    }
  }
}

/** Writes `bytes` at `file` through a temporary file (a reader never sees half a picture); the same name holds the same bytes. */
async function writeOnce (file: string, bytes: Buffer): Promise<void> {
  const exists = await fs.stat(file).then(() => true, () => false)
  if (exists) return
  const temporary = `${file}.${randomUUID()}.tmp`
  await fs.writeFile(temporary, bytes)
  await fs.rename(temporary, file)
}
