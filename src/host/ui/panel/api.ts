import type { ApiAnswer } from '../../../sdk/ui.js'

/** JSON over fetch with the session cookie; never throws (status 0: unreachable). */
export async function api (method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  try {
    const response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    const parsed = text === '' ? {} : JSON.parse(text) as Record<string, unknown>
    const retryAfter = response.headers.get('retry-after')
    return { ok: response.ok, status: response.status, body: retryAfter === null ? parsed : { ...parsed, retryAfter } }
  } catch {
    return { ok: false, status: 0, body: undefined }
  }
}
