import sharp, { type Metadata } from 'sharp'
import { ImageTooLarge, MAX_PICTURE_PIXELS, PICTURE_MAX_SIDE, ServiceUnavailable, THUMBNAIL_MAX_SIDE, UnsupportedMediaType } from '../../sdk/index.js'

// Nothing kept between pictures (libvips' operation cache holds decoded pixels), and one
// libvips thread per picture: pictures run side by side on libuv's pool, bounded below.
sharp.cache(false)
sharp.concurrency(1)

/** What sharp reports for the formats taken; AVIF is a HEIF whose compression is AV1 (HEVC is not taken). */
const TAKEN = new Set(['jpeg', 'png', 'webp', 'gif', 'heif'])

/** A picture written again: the picture and its thumbnail, WebP, with no metadata. */
export interface Reencoded {
  readonly image: Buffer
  readonly thumb: Buffer
  readonly width: number
  readonly height: number
}

/**
 * Decodes a picture and writes it again, on libuv's thread pool (sharp's own), never on
 * the event loop: its header first (format and size, no pixel decoded), then the pixels,
 * turned as its EXIF orientation says, shrunk to PICTURE_MAX_SIDE at most, encoded as WebP
 * with no metadata at all (EXIF, GPS, XMP, ICC gone); then the thumbnail from that.
 * Whatever else the file held — a script after a JPEG's end, an archive after a GIF's — is
 * not in the bytes written.
 */
export async function reencode (bytes: Buffer): Promise<Reencoded> {
  const options = { limitInputPixels: MAX_PICTURE_PIXELS, failOn: 'error' as const, animated: false }
  let meta: Metadata
  try {
    meta = await sharp(bytes, options).metadata()
  } catch (error) {
    throw refusal(error)
  }
  if (meta.format === undefined || !TAKEN.has(meta.format) || (meta.format === 'heif' && meta.compression !== 'av1')) throw new UnsupportedMediaType()
  const width = meta.width ?? 0
  const height = meta.pageHeight ?? meta.height ?? 0
  if (width <= 0 || height <= 0) throw new UnsupportedMediaType()
  if (width * height > MAX_PICTURE_PIXELS) throw new ImageTooLarge()
  try {
    const full = await sharp(bytes, options).rotate()
      .resize({ width: PICTURE_MAX_SIDE, height: PICTURE_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 82 }).toBuffer({ resolveWithObject: true })
    const thumb = await sharp(full.data).resize({ width: THUMBNAIL_MAX_SIDE, height: THUMBNAIL_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 }).toBuffer()
    return { image: full.data, thumb, width: full.info.width, height: full.info.height }
  } catch (error) {
    throw refusal(error)
  }
}

/** A header over the pixel limit (libvips checks it as it reads the header, and again as it decodes), or what does not decode. */
function refusal (error: unknown): ImageTooLarge | UnsupportedMediaType {
  return error instanceof Error && /pixel limit/i.test(error.message) ? new ImageTooLarge() : new UnsupportedMediaType()
}

/**
 * At most `size` pictures decoded at once in this process, and `waiting` more queued; past
 * that, ServiceUnavailable with Retry-After: memory stays bounded (a 12-megapixel photo is
 * about 36 MB of pixels while it is decoded) and the pool keeps threads for the rest.
 */
export class ReencodeGate {
  private running = 0
  private readonly queue: Array<() => void> = []

  constructor (private readonly size: number, private readonly waiting: number) {}

  async run<T> (work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) {
      if (this.queue.length >= this.waiting) {
        const busy = new ServiceUnavailable()
        busy.headers['retry-after'] = '2'
        throw busy
      }
      await new Promise<void>(resolve => this.queue.push(resolve))
    } else {
      this.running++
    }
    try {
      return await work()
    } finally {
      const next = this.queue.shift()
      if (next === undefined) this.running--
      else next()
    }
  }
}
