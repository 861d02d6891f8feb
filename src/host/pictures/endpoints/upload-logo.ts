import {
  BadRequest, ImageTooLarge, NoPermission, PanelApi, PayloadTooLarge, ServiceUnavailable, Successful, Type, UnsupportedMediaType, okAnswer, type SignedInCall
} from '../../../sdk/index.js'
import type { HostContext } from '../../addons/context.js'
import { HOST_PICTURES } from '../pictures.js'

/** The largest logo taken, in bytes, as sent. */
export const MAX_LOGO_BYTES = 2 * 1024 * 1024

const LogoSchema = Type.Object({
  id: Type.Integer({ description: 'give it to whatever removes the previous logo' }),
  url: Type.String({ description: '`/uploads/<sha256>.webp`, served to everyone' }),
  thumbUrl: Type.String({ description: '`/uploads/<sha256>.thumb.webp`, at most 320 px' }),
  width: Type.Integer(),
  height: Type.Integer()
}, { additionalProperties: false })

/**
 * POST /api/panel/uploads/logo (multipart/form-data, one file; MANAGE_SETTINGS) — a picture
 * for the site's logo, decoded and written again as any upload (JPEG, PNG, WebP, GIF or
 * AVIF, up to 2 MiB, metadata gone, at most 2048 px, a 320 px thumbnail). A logo is served
 * to everyone and never swept: the site's settings keep its `url`, and whatever sets the
 * next one removes this one (`pictureStore.remove('host', [id])`). It is the site's, not its uploader's:
 * erasing the administrator keeps it.
 */
export class UploadLogo extends PanelApi<object, HostContext> {
  readonly method = 'POST'
  readonly path = '/api/panel/uploads/logo'
  readonly schema = {}
  override readonly multipart = true
  override readonly closedToTokens = true
  override readonly answers = {
    ok: okAnswer({ upload: LogoSchema }, {
      upload: { id: 3, url: '/uploads/5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8.webp', thumbUrl: '/uploads/5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8.thumb.webp', width: 512, height: 128 }
    }, 'The logo, stored'),
    errors: [BadRequest, NoPermission, PayloadTooLarge, ImageTooLarge, UnsupportedMediaType, ServiceUnavailable]
  }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    const file = await call.file(MAX_LOGO_BYTES)
    const logo = await call.ctx.pictureStore.accept(HOST_PICTURES, file.bytes, { userId: null, kind: 'logo' })
    return new Successful({ upload: { id: logo.id, url: logo.url, thumbUrl: logo.thumbUrl, width: logo.width, height: logo.height } })
  }
}
