import { randomBytes } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import sharp from 'sharp'
import type { App } from './app.js'

/** A phone's photo: 400×200 pixels stored sideways, EXIF orientation 6 (turn 90° clockwise), a GPS position in its EXIF. */
export async function phoneJpeg (): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 200, channels: 3, background: '#c03020' } })
    .composite([{ input: { create: { width: 100, height: 200, channels: 3, background: '#2040c0' } }, left: 0, top: 0 }])
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'PhoneMaker', Model: 'Phone 12', Copyright: 'GPS-SECRET-OWNER' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '41/1 1/1 12/1', GPSLongitudeRef: 'E', GPSLongitude: '28/1 58/1 30/1', GPSMapDatum: 'WGS-84-SECRET' }
    })
    .toBuffer()
}

/** A small picture of one colour in `format`. */
export async function plainPicture (format: 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' = 'png', width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#3a7' } }).toFormat(format).toBuffer()
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32 (bytes: Buffer): number {
  let c = 0xffffffff
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A decompression bomb: a PNG whose header says `width`×`height` (grey, 8 bits) and whose
 * pixels are one compressed run of zeros a few hundred bytes long — gigabytes once decoded.
 */
export function pixelBomb (width = 30_000, height = 30_000): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.writeUInt8(8, 8) // bit depth
  ihdr.writeUInt8(0, 9) // greyscale
  // The first rows only (a filter byte and `width` zeros each): the rest is never sent.
  const rows = deflateSync(Buffer.alloc((width + 1) * 64), { level: 9 })
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', rows), chunk('IEND', Buffer.alloc(0))])
}

/** A JPEG with an HTML page after its end: a browser sniffing it could take it for HTML. */
export async function htmlPolyglot (): Promise<Buffer> {
  return Buffer.concat([await plainPicture('jpeg'), Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')])
}

/** A GIF with a zip archive after it (a "GIFAR"): a Java or zip reader would open the archive. */
export async function gifar (): Promise<Buffer> {
  const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(64), Buffer.from('META-INF/MANIFEST.MF'), Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)])
  return Buffer.concat([await plainPicture('gif'), zip])
}

/** A multipart/form-data body holding one file, as a browser's FormData sends it. */
export function multipart (bytes: Buffer, filename = 'photo.jpg', type = 'image/jpeg', field = 'file'): { payload: Buffer, headers: Record<string, string> } {
  const boundary = `----shoutbox${randomBytes(8).toString('hex')}`
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`
  return {
    payload: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }
  }
}

/** Uploads `bytes` as the holder of `cookie`. */
export async function upload (app: App, cookie: string | undefined, bytes: Buffer, filename?: string, type?: string) {
  const body = multipart(bytes, filename, type)
  return app.inject({ method: 'POST', url: '/api/shoutbox/uploads', headers: { ...body.headers, ...(cookie === undefined ? {} : { cookie }) }, payload: body.payload })
}
