import {
  BadRequest, ImageTooLarge, NoPermission, PanelApi, PayloadTooLarge, ServiceUnavailable, Successful, Type, UnsupportedMediaType, okAnswer, type Actor, type SignedInCall
} from '../../../sdk/index.js'
import type { HostContext } from '../../addons/context.js'
import { UPLOADS_TABLE } from '../../database/tables.js'
import { facesOf, siteFaceRepository, type SiteFace } from '../../site-face/face.js'
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
 * POST /api/panel/uploads/logo (multipart/form-data, one file; MANAGE_SETTINGS) — the site's
 * logo, decoded and written again as any upload (JPEG, PNG, WebP, GIF or AVIF, up to 2 MiB,
 * metadata gone, at most 2048 px, a 320 px thumbnail), and set at once as the site's face's
 * `logo` on every process (logged UPDATED_SITE_FACE); the logo it replaces is removed. A
 * logo is served to everyone and never swept. It is the site's, not its uploader's:
 * erasing the administrator keeps it. `PUT /api/panel/site-face {"logo": null}` takes it down.
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
    const { ctx, user } = call
    const logo = await ctx.pictureStore.accept(HOST_PICTURES, file.bytes, { userId: null, kind: 'logo' })
    await setLogo(ctx, user, logo.url)
    return new Successful({ upload: { id: logo.id, url: logo.url, thumbUrl: logo.thumbUrl, width: logo.width, height: logo.height } })
  }
}

/**
 * Makes `url` (a logo's, or null) the site's logo, on every process, logged; removes the
 * logo it replaces (unless it is the same picture, uploaded again).
 */
export async function setLogo (ctx: HostContext, user: Actor, url: string | null): Promise<SiteFace> {
  return await ctx.transaction(async trx => {
    const before = await siteFaceRepository(trx).read(trx)
    const next: SiteFace = { ...before, logo: url }
    await facesOf(ctx.db).change(next, trx)
    await ctx.activityLog.write({ type: 'UPDATED_SITE_FACE', user, details: { logo: url } }, trx)
    const old = before.logo === null || before.logo === url ? undefined : /^\/uploads\/([0-9a-f]{64})\.webp$/.exec(before.logo)?.[1]
    if (old !== undefined) {
      const ids = (await trx(UPLOADS_TABLE).where({ owner_id: HOST_PICTURES, kind: 'logo', sha256: old }).select<Array<{ id: number }>>('id')).map(row => Number(row.id))
      await ctx.pictureStore.remove(HOST_PICTURES, ids, trx)
    }
    return next
  })
}
