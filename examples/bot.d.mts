export interface PostShoutOptions {
  /** Where Shoutbox runs, e.g. `http://localhost:8088`. */
  baseUrl: string
  /** The API token's secret, `sbx_...`. */
  token: string
  message: string
  /** A room's slug; without it the shout goes to `/api/shoutbox`. */
  room?: string
  /** How often to wait `Retry-After` and try again after a 429 (the flood limits); default 2. */
  retries?: number
  /** Told each wait (seconds), before it begins. */
  onWait?: (seconds: number) => void
}

/** Posts a shout, waiting out a 429's Retry-After (twice at most); throws an Error naming the error code and HTTP status on a non-2xx answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function postShout (options: PostShoutOptions): Promise<any>
