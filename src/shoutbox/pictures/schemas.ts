import { Type, type Static } from '../../sdk/index.js'

/** The most pictures one shout carries. */
export const MAX_PICTURES_PER_SHOUT = 4
/** The longest alt text (code units, as the schema counts). */
export const MAX_ALT_LENGTH = 200
/** Pictures one member may upload a UTC day. */
export const UPLOADS_PER_DAY = 20

/** A picture as a shout carries it: where it is served, its size, and its text for those who cannot see it. */
export const ShoutPictureSchema = Type.Object({
  url: Type.String({ description: '`/uploads/<sha256>.webp`: at most 2048 px on its long side' }),
  thumbUrl: Type.String({ description: '`/uploads/<sha256>.thumb.webp`: at most 320 px on its long side' }),
  width: Type.Integer(),
  height: Type.Integer(),
  alt: Type.String({ description: 'what the picture shows, in words' })
}, { additionalProperties: false })

export type ShoutPicture = Static<typeof ShoutPictureSchema>

export const ShoutPicturesSchema = Type.Array(ShoutPictureSchema, { maxItems: MAX_PICTURES_PER_SHOUT, description: 'its pictures, in order; absent when it has none' })

/** A picture a post attaches: one of the poster's uploads, and its alt text. */
export const AttachedPictureSchema = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'an upload of the poster (`POST /api/shoutbox/uploads`)' }),
  alt: Type.String({ maxLength: MAX_ALT_LENGTH, description: 'what the picture shows, in words (empty only for a picture that shows nothing to tell)' })
})

export const AttachedPicturesSchema = Type.Array(AttachedPictureSchema, { maxItems: MAX_PICTURES_PER_SHOUT, description: `up to ${MAX_PICTURES_PER_SHOUT} of the poster's uploads, each with its alt text` })

export type AttachedPicture = Static<typeof AttachedPictureSchema>

export const PICTURE_EXAMPLE: ShoutPicture = {
  url: '/uploads/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.webp',
  thumbUrl: '/uploads/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.thumb.webp',
  width: 2048,
  height: 1536,
  alt: 'The lighthouse at dusk'
}
