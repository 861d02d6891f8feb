/**
 * Types the tests and their helpers share, each declared once. (`App`, what `build()`
 * returns, is in ./app.js.)
 */

/** The part of tap's test object the helpers use: somewhere to hang a clean-up. */
export interface Tap {
  teardown (fn: () => unknown): void
}
