/** How the panel UI calls its endpoints, and how they are declared. */
export const PANEL_PATH_PREFIX = '/panel/api/'
export const PANEL_API_PREFIX = '/api/panel/'

/**
 * The panel UI calls `/panel/api/<rest>`; endpoints are declared as `/api/panel/<rest>`.
 * Rewritten once, on entry, keeping the query string (the method is untouched).
 */
export function rewritePanelUrl (url: string): string {
  if (url.startsWith(UPLOADS_PATH_PREFIX)) return UPLOADS_API_PREFIX + url.slice(UPLOADS_PATH_PREFIX.length)
  return url.startsWith(PANEL_PATH_PREFIX) ? PANEL_API_PREFIX + url.slice(PANEL_PATH_PREFIX.length) : url
}

/** Pictures are linked as `/uploads/<name>` and served by the endpoint `/api/uploads/:file`: rewritten the same way. */
export const UPLOADS_PATH_PREFIX = '/uploads/'
export const UPLOADS_API_PREFIX = '/api/uploads/'

/** Where another tool posts into an incoming hook, and how its endpoints are declared. */
export const HOOKS_PATH_PREFIX = '/hooks/'
export const HOOKS_API_PREFIX = '/api/hooks/'

/**
 * Every rewrite made on entry: the panel's `/panel/api/<rest>`, and the short public
 * address of the hooks other tools post to, `/hooks/<rest>` → `/api/hooks/<rest>` (a
 * URL pasted into a Slack or Discord bridge's settings).
 */
export function rewriteEntryUrl (url: string): string {
  return url.startsWith(HOOKS_PATH_PREFIX) ? HOOKS_API_PREFIX + url.slice(HOOKS_PATH_PREFIX.length) : rewritePanelUrl(url)
}
