import type { App } from './app.js'

/** One answer of `app.inject`. */
export type Inject = Awaited<ReturnType<App['inject']>>

/** The envelope of a refusal: `{result: "error", error: code, ...extras}`. */
export const error = (code: string, extras: Record<string, unknown> = {}) => ({ result: 'error', error: code, ...extras })

/** An answer as [status, body], ready for `t.same`. */
export const answer = (response: Inject): [number, unknown] => [response.statusCode, response.json()]

/** Requests to `app` as the holder of `cookie` (undefined: a visitor). */
export function as (app: App, cookie: string | undefined) {
  const headers = cookie === undefined ? {} : { cookie }
  return {
    get: (url: string) => app.inject({ url, headers }),
    post: (url: string, payload: Record<string, unknown>) => app.inject({ method: 'POST', url, headers, payload }),
    put: (url: string, payload?: Record<string, unknown>) => app.inject({ method: 'PUT', url, headers, ...(payload === undefined ? {} : { payload }) }),
    delete: (url: string) => app.inject({ method: 'DELETE', url, headers })
  }
}
