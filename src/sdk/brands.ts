/**
 * Brands let the host recognise SDK objects by shape, not by `instanceof`: a packaged
 * addon carries its own bundled copy of this SDK, so its classes are not the host's
 * classes. `Symbol.for` gives the same symbol in every copy.
 */
export const ENDPOINT: unique symbol = Symbol.for('shoutbox.sdk.endpoint')
export const LISTENER: unique symbol = Symbol.for('shoutbox.sdk.listener')
export const PLATFORM_ERROR: unique symbol = Symbol.for('shoutbox.sdk.platform-error')
export const SUCCESSFUL: unique symbol = Symbol.for('shoutbox.sdk.successful')
export const STREAMED_LIST: unique symbol = Symbol.for('shoutbox.sdk.streamed-list')
export const STREAMED_ANSWER: unique symbol = Symbol.for('shoutbox.sdk.streamed-answer')
export const STREAMED_ARRAY: unique symbol = Symbol.for('shoutbox.sdk.streamed-array')
export const SHARED_ANSWER: unique symbol = Symbol.for('shoutbox.sdk.shared-answer')
export const BYTES_ANSWER: unique symbol = Symbol.for('shoutbox.sdk.bytes-answer')
export const ADDON: unique symbol = Symbol.for('shoutbox.sdk.addon')
/** Set as an own static property on the SDK's abstract bases, so discovery skips them. */
export const SDK_BASE: unique symbol = Symbol.for('shoutbox.sdk.base')

/** Marks an SDK base class: discovery skips the bases themselves. */
export function markSdkBase (cls: object): void {
  Object.defineProperty(cls, SDK_BASE, { value: true, enumerable: false })
}
