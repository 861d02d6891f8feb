/**
 * Everything an addon may import. If an addon needs something from the host, it grows
 * here, typed.
 */
export { Type, type Static, type TSchema } from '@sinclair/typebox'
export * from './errors.js'
export { errorCode } from './error-code.js'
export * from './endpoint.js'
export * from './streamed.js'
export { okAnswer, bytesAnswer, eventStreamAnswer, EVENT_STREAM_TYPE, type EndpointAnswers, type ErrorClass } from './answers.js'
export { IdParamsSchema, checker } from './schemas.js'
export { isBlankText, isStorableText, UNSTORABLE_TEXT } from './text.js'
export * from './events.js'
export * from './addon.js'
export type * from './context.js'
export { ALL_PERMISSIONS, holdsNode } from './context.js'
export { AddonManifestSchema, type AddonManifest, type PermissionDeclaration } from './manifest.js'
export { clientKey } from './client-address.js'
export { prepared } from './prepared.js'
export { Viewer, type MemberViewer } from './viewer.js'
export type { DataMap, Holds, MappedTable, PersonalColumn } from './data-map.js'
export {
  BytesAnswer, ImageTooLarge, isBytesAnswer, MAX_PICTURE_PIXELS, PICTURE_MAX_SIDE, THUMBNAIL_MAX_SIDE, UnsupportedMediaType, UPLOAD_BYTES_CEILING,
  type PictureKind, type PictureOwner, type Pictures, type StoredPicture, type UploadedFile
} from './pictures.js'
