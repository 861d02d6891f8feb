import { BadRequest, isStorableText, type AddonContext, type SessionUser } from '../../sdk/index.js'
import { SHOUTS_TABLE } from '../tables.js'
import type { AttachedPicture, ShoutPicture } from '../schemas.js'

/** `{"uploads": [...]}` for a shout (the row `row`) that has pictures, else nothing: a shout's json carries `uploads` only then. */
export const uploadsOf = (row: string): string => `case when ${row}.uploads is null then '{}'::jsonb else jsonb_build_object('uploads', ${row}.uploads) end`

/** The json containment that finds the shouts showing the picture `sha256`. */
export const showing = (sha256: string): string => JSON.stringify([{ url: `/uploads/${sha256}.webp` }])

/** The picture `url` names (its SHA-256). */
export const shaOf = (url: string): string => url.slice('/uploads/'.length, '/uploads/'.length + 64)

/**
 * The pictures a member's post attaches, as the shout will carry them: each must be one of
 * the poster's own uploads (another's id, or no upload's, is the same 400, which tells
 * nothing of others' uploads), named once, its alt text storable. Null when none.
 */
export async function attachPictures (ctx: AddonContext, user: SessionUser, attached: readonly AttachedPicture[] | undefined): Promise<ShoutPicture[] | null> {
  if (attached === undefined || attached.length === 0) return null
  const ids = attached.map(picture => picture.id)
  if (new Set(ids).size !== ids.length) throw new BadRequest({ bodyValidationError: 'body/uploads must not name an upload twice' })
  for (const picture of attached) {
    if (!isStorableText(picture.alt)) throw new BadRequest({ bodyValidationError: 'body/uploads/alt must be text' })
  }
  const owned = await ctx.pictures.ownedBy(user.id, ids)
  if (owned.length !== ids.length) throw new BadRequest({ bodyValidationError: 'body/uploads must name uploads of yours' })
  return owned.map((picture, index) => ({ url: picture.url, thumbUrl: picture.thumbUrl, width: picture.width, height: picture.height, alt: attached[index]!.alt.trim() }))
}

/** The pictures of each of `ids` that has any (one query). */
export async function picturesOf (ctx: AddonContext, ids: readonly number[]): Promise<Map<number, ShoutPicture[]>> {
  if (ids.length === 0) return new Map()
  const rows: Array<{ id: number | string, uploads: ShoutPicture[] }> = await ctx.db(SHOUTS_TABLE).whereIn('id', [...ids]).whereNotNull('uploads').select('id', 'uploads')
  return new Map(rows.map(row => [Number(row.id), row.uploads]))
}
