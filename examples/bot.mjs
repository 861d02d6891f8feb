/**
 * A Shoutbox bot: posts a shout with an API token. Plain Node (18+), no dependencies.
 *
 * Make a token under your account (`POST /api/users/me/tokens`) or, for a bot account,
 * have an administrator make one (`POST /api/panel/users/:id/tokens`). The secret
 * (`sbx_...`) is shown once; it is sent as `Authorization: Bearer <secret>`.
 *
 * As a script:
 *   SHOUTBOX_TOKEN=sbx_... node examples/bot.mjs Hello from the bot
 *   SHOUTBOX_TOKEN=sbx_... node examples/bot.mjs --room general Hello, general
 * As a module:
 *   import { postShout } from './bot.mjs'
 *
 * Bots have the flood limits members have (`minSecondsBetweenShouts`, `maxShoutsPerMinute`
 * in the board's settings): too soon after the last shout, Shoutbox answers 429 with
 * `Retry-After` (seconds). The script waits that long and tries again (twice at most),
 * saying so on stderr.
 */
import process from 'node:process'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'

/**
 * Posts one shout and returns Shoutbox's answer (`{result: "ok", shout: {...}}`).
 * Throws an Error naming the error code and the HTTP status when Shoutbox refuses.
 *
 * @param {object} options
 * @param {string} options.baseUrl where Shoutbox runs, e.g. `http://localhost:8088`
 * @param {string} options.token the API token's secret, `sbx_...`
 * @param {string} options.message the shout's text
 * @param {string} [options.room] a room's slug; without it the shout goes to the default room
 * @param {number} [options.retries] how often to wait `Retry-After` and try again after a 429 (default 2)
 * @param {(seconds: number) => void} [options.onWait] told each wait, before it begins
 * @returns {Promise<any>}
 */
export async function postShout ({ baseUrl, token, message, room, retries = 2, onWait = () => {} }) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await postOnce({ baseUrl, token, message, room })
    } catch (error) {
      // 429: the flood limits (or too many requests from this address). Retry-After says when.
      if (error.status !== 429 || attempt >= retries) throw error
      const seconds = Math.min(Math.max(Number(error.retryAfter) || 1, 1), 120)
      onWait(seconds)
      await sleep(seconds * 1000)
    }
  }
}

async function postOnce ({ baseUrl, token, message, room }) {
  // Step 1: pick the endpoint. A room has its own; otherwise the board's default.
  // The path is relative, so a board served under a path (https://example.org/board) works.
  const path = room ? `api/shoutbox/rooms/${encodeURIComponent(room)}/shouts` : 'api/shoutbox'
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)

  // Step 2: send it, with the token as a Bearer credential (no cookie is needed).
  const response = await globalThis.fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json'
    },
    body: JSON.stringify({ message })
  })

  // Step 3: read the answer. Errors look like `{"result":"error","error":"CODE", ...}`.
  const text = await response.text()
  let body
  try {
    body = JSON.parse(text)
  } catch {
    body = null
  }
  if (!response.ok) {
    const code = body?.error ?? 'UNKNOWN_ERROR'
    const retryAfter = response.headers.get('retry-after')
    const error = new Error(`Shoutbox refused the shout: ${code} (HTTP ${response.status})${retryAfter === null ? '' : `; Retry-After: ${retryAfter} s`}`)
    Object.assign(error, { code, status: response.status, body, retryAfter })
    throw error
  }
  if (body === null) throw new Error(`Shoutbox answered HTTP ${response.status} with something that is not JSON`)
  return body
}

// Run as a script: the message is the arguments, `--room <slug>` picks a room.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2)
  let room
  const roomAt = args.indexOf('--room')
  if (roomAt !== -1) {
    room = args[roomAt + 1]
    args.splice(roomAt, 2)
  }
  const token = process.env.SHOUTBOX_TOKEN
  const message = args.join(' ')
  if (!token || !message || (roomAt !== -1 && !room)) {
    console.error('Usage: SHOUTBOX_TOKEN=sbx_... [SHOUTBOX_URL=http://localhost:8088] node examples/bot.mjs [--room <slug>] <message>')
    process.exit(1)
  }
  try {
    const answer = await postShout({
      baseUrl: process.env.SHOUTBOX_URL ?? 'http://localhost:8088',
      token,
      message,
      room,
      onWait: seconds => console.error(`Shoutbox says: too soon (bots have flood limits too); Retry-After ${seconds} s, waiting and trying again`)
    })
    console.log(JSON.stringify(answer, null, 2))
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
