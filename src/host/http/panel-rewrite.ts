/** How the panel UI calls its endpoints, and how they are declared. */
export const PANEL_PATH_PREFIX = '/panel/api/'
export const PANEL_API_PREFIX = '/api/panel/'

/**
 * The panel UI calls `/panel/api/<rest>`; endpoints are declared as `/api/panel/<rest>`.
 * Rewritten once, on entry, keeping the query string (the method is untouched).
 */
export function rewritePanelUrl (url: string): string {
  return url.startsWith(PANEL_PATH_PREFIX) ? PANEL_API_PREFIX + url.slice(PANEL_PATH_PREFIX.length) : url
}
