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
 */
import process from 'node:process'
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
 * @returns {Promise<any>}
 */
export async function postShout ({ baseUrl, token, message, room }) {
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
    const error = new Error(`Shoutbox refused the shout: ${code} (HTTP ${response.status})`)
    Object.assign(error, { code, status: response.status, body })
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
    const answer = await postShout({ baseUrl: process.env.SHOUTBOX_URL ?? 'http://localhost:8088', token, message, room })
    console.log(JSON.stringify(answer, null, 2))
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
