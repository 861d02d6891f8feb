/**
 * The wire code of an error class: its name in UPPER_SNAKE form.
 * `NoPermission` → `NO_PERMISSION`, `MessageTooLong` → `MESSAGE_TOO_LONG`,
 * `HTTPTimeout` → `HTTP_TIMEOUT`.
 */
export function errorCode (className: string): string {
  return className
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toUpperCase()
}
