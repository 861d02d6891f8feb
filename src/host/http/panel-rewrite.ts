const PANEL_API = '/panel/api/'

/**
 * The panel UI calls `/panel/api/<rest>`; endpoints are declared as `/api/panel/<rest>`.
 * Rewritten once, on entry, keeping the query string (the method is untouched).
 */
export function rewritePanelUrl (url: string): string {
  return url.startsWith(PANEL_API) ? `/api/panel/${url.slice(PANEL_API.length)}` : url
}
