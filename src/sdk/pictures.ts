import { BYTES_ANSWER } from './brands.js'
import { BadRequest, PlatformError } from './errors.js'
import type { Transaction } from './context.js'
import type { Viewer } from './viewer.js'

/** A picture over this many pixels (width × height, read from its header before it is decoded) → IMAGE_TOO_LARGE. */
export const MAX_PICTURE_PIXELS = 40_000_000

/** The longest side of a picture as it is kept, and of its thumbnail. */
export const PICTURE_MAX_SIDE = 2048
export const THUMBNAIL_MAX_SIDE = 320

/** The most bytes an upload may ever have, whatever an owner's own limit says. */
export const UPLOAD_BYTES_CEILING = 20 * 1024 * 1024

/** A picture with more than MAX_PICTURE_PIXELS pixels → IMAGE_TOO_LARGE, 400. */
export class ImageTooLarge extends BadRequest {
  constructor () {
    super({ maxPixels: MAX_PICTURE_PIXELS })
  }
}

/** An upload that is not a picture the host reads (JPEG, PNG, WebP, GIF, AVIF) → UNSUPPORTED_MEDIA_TYPE, 415. */
export class UnsupportedMediaType extends PlatformError {
  override readonly status = 415
}

/**
 * What an upload is for: `picture`, attached to something an addon keeps (a shout), and
 * served while that addon says the reader may see it; `logo`, the site's own, served to
 * everyone and never removed by the sweep (whoever sets a new logo removes the old one).
 */
export type PictureKind = 'picture' | 'logo'

/** A picture as the host stored it: decoded, written again as WebP without metadata. */
export interface StoredPicture {
  readonly id: number
  /** The SHA-256 (hex) of the picture's bytes: its name. */
  readonly sha256: string
  readonly width: number
  readonly height: number
  /** `/uploads/<sha256>.webp` */
  readonly url: string
  /** `/uploads/<sha256>.thumb.webp` */
  readonly thumbUrl: string
  readonly kind: PictureKind
  readonly userId: number | null
  readonly createdAt: number
}

/** A file read from a multipart request (the first file part). */
export interface UploadedFile {
  readonly bytes: Buffer
  /** As the client named it: never trusted, never stored. */
  readonly filename: string
  readonly mimetype: string
}

/**
 * The host's pictures: uploads decoded and written again off the event loop (a bounded
 * number at a time), stored in the database or `UPLOADS_DIR`, served at `/uploads/`.
 */
export interface Pictures {
  /**
   * Decodes `bytes` and stores the picture (at most PICTURE_MAX_SIDE on its long side,
   * orientation applied, metadata dropped) and its thumbnail, both WebP. Throws
   * ImageTooLarge past MAX_PICTURE_PIXELS, UnsupportedMediaType for what is not a
   * picture, ServiceUnavailable (with Retry-After) while too many wait to be decoded.
   */
  accept (bytes: Buffer, owner: { readonly userId: number | null, readonly kind: PictureKind }): Promise<StoredPicture>
  /** The pictures among `ids` uploaded by `userId` (of kind `picture`), in the order of `ids`. */
  ownedBy (userId: number, ids: readonly number[], trx?: Transaction): Promise<StoredPicture[]>
  /** Every picture `userId` uploaded, oldest first (for their export). */
  uploadedBy (userId: number): Promise<StoredPicture[]>
  /** Removes pictures (their bytes too, once no other upload has the same). */
  remove (ids: readonly number[], trx?: Transaction): Promise<void>
}

/**
 * What an addon says about its own pictures (AddonDefinition.pictures): which a reader may
 * see, and which are still used. The host asks before it serves one, and before the sweep
 * removes those older than an hour (a picture no addon uses an hour after its upload is
 * removed).
 */
export interface PictureOwner {
  /** Whether `viewer` may see the picture named `sha256` (one of the addon's). */
  visible (sha256: string, viewer: Viewer): Promise<boolean>
  /** Those of `sha256s` the addon still uses. */
  inUse (sha256s: readonly string[]): Promise<Set<string>>
}

/**
 * An answer that is bytes, not JSON: a picture. `headers` are set as given; the host adds
 * its own (nosniff) and nothing that would make it JSON.
 */
export class BytesAnswer {
  readonly [BYTES_ANSWER] = true

  constructor (readonly bytes: Buffer, readonly type: string, readonly headers: Readonly<Record<string, string>> = {}) {}
}

/** Whether `answer` is a BytesAnswer, from this copy of the SDK or an addon's own. */
export function isBytesAnswer (answer: unknown): answer is BytesAnswer {
  return typeof answer === 'object' && answer !== null && (answer as Record<symbol, unknown>)[BYTES_ANSWER] === true
}
