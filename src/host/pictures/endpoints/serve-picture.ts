import { Api, BytesAnswer, NotFound, Type, bytesAnswer, type PublicCall } from '../../../sdk/index.js'
import type { HostContext } from '../../addons/context.js'
import { parsePictureName } from '../pictures.js'

const ParamsSchema = Type.Object({ file: Type.String({ maxLength: 80, description: '`<sha256>.webp` or `<sha256>.thumb.webp`' }) })

/** A year: a picture's name is its bytes' SHA-256, so what a name answers never changes. */
const IMMUTABLE = 'max-age=31536000, immutable'

/**
 * A picture or its thumbnail, at `/uploads/<sha256>.webp` and `/uploads/<sha256>.thumb.webp`
 * (rewritten on entry to this path): to whoever its owner lets see it (a shout's picture:
 * the readers of its room while the shout is on the board), the site's logo to everyone;
 * 404 NOT_FOUND otherwise, exactly as for a name no upload has. Served as WebP that can
 * never be read as anything else: nosniff, and a policy that lets it run nothing.
 */
export class ServePicture extends Api<{ params: typeof ParamsSchema }, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/uploads/:file'
  readonly schema = { params: ParamsSchema }
  override readonly readsSession = true
  override readonly answers = { ok: bytesAnswer('image/webp', 'the picture, WebP, without metadata'), errors: [NotFound] }

  async handle ({ params, viewer, ctx }: PublicCall<{ params: typeof ParamsSchema }, HostContext>): Promise<BytesAnswer> {
    const name = parsePictureName(params.file)
    if (name === undefined) throw new NotFound()
    const served = await ctx.pictureStore.serve(name.sha256, name.thumb, viewer)
    if (served === undefined) throw new NotFound()
    return new BytesAnswer(served.bytes, 'image/webp', {
      // A picture only some may see is kept by the browser alone, never by a shared cache.
      'cache-control': `${served.everyone ? 'public' : 'private'}, ${IMMUTABLE}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'"
    })
  }
}
