import {
  BadRequest, ImageTooLarge, LoggedInApi, NoPermission, PayloadTooLarge, ServiceUnavailable, Successful, TooManyRequests, Type, UnsupportedMediaType, okAnswer, type SignedInCall
} from '../../../sdk/index.js'
import { Muted } from '../../errors.js'
import { assertNotMuted } from '../../mutes.js'
import { ShoutboxSettings } from '../../settings.js'
import { countUpload } from '../upload-days.js'

/**
 * POST /api/shoutbox/uploads (multipart/form-data, one file) — a member uploads a picture
 * to attach to a shout (`uploads: [{id, alt}]` on a post): JPEG, PNG, WebP, GIF or AVIF
 * up to `maxUploadBytes`, decoded and written again by the host (metadata gone,
 * orientation applied, at most 2048 px, WebP, a 320 px thumbnail). With UPLOAD_PICTURES
 * (`addon.shoutbox.upload`, members have it), not while muted, at most 20 a day (429).
 * Over 40 megapixels → 400 IMAGE_TOO_LARGE; not a picture → 415 UNSUPPORTED_MEDIA_TYPE;
 * over `maxUploadBytes` → 413. Not attached within an hour, it is removed.
 */
export class UploadPicture extends LoggedInApi {
  readonly method = 'POST'
  readonly path = '/api/shoutbox/uploads'
  readonly schema = {}
  override readonly multipart = true
  override readonly answers = {
    ok: okAnswer({
      upload: Type.Object({ id: Type.Integer(), width: Type.Integer(), height: Type.Integer() }, { additionalProperties: false, description: 'the picture as stored: attach it by its id' })
    }, { upload: { id: 17, width: 2048, height: 1536 } }, 'The picture, stored'),
    errors: [BadRequest, NoPermission, Muted, TooManyRequests, PayloadTooLarge, ImageTooLarge, UnsupportedMediaType, ServiceUnavailable]
  }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('UPLOAD_PICTURES')
    const { ctx, user } = call
    await assertNotMuted(ctx, user)
    const { maxUploadBytes } = await ShoutboxSettings.of(ctx).current()
    const file = await call.file(maxUploadBytes)
    await countUpload(ctx.db, user.id)
    const picture = await ctx.pictures.accept(file.bytes, { userId: user.id, kind: 'picture' })
    return new Successful({ upload: { id: picture.id, width: picture.width, height: picture.height } })
  }
}
