/**
 * Bridges a room of one Shoutbox board with a room of another, both ways. Plain Node
 * (20+), no dependencies, and no process of its own once it has run: the boards talk to
 * each other directly.
 *
 * On each board it signs in as an administrator (managing hooks takes a signed-in person,
 * never a token) and adds:
 *   1. an incoming hook for the room: a secret URL that takes Slack-shaped `{text, username}`;
 *   2. an outgoing webhook in the `slack` format, for `shout.created` in that room only,
 *      pointed at the other board's incoming hook.
 * A shout on board A is then sent to B's incoming hook and appears on B as `username
 * via <hook>`; B does not send it back, because a shout that came in through an incoming
 * hook is never sent to a slack- or discord-format hook. So each shout appears once on the
 * other board and is never echoed.
 *
 * As a script:
 *   A_URL=https://a.example.org A_ADMIN=admin A_PASSWORD=... \
 *   B_URL=https://b.example.org B_ADMIN=admin B_PASSWORD=... \
 *   node examples/board-bridge.mjs [--room general] [--other-room general]
 * As a module:
 *   import { bridgeBoards } from './board-bridge.mjs'
 *
 * Each board must be able to reach the other's URL. Boards on plain http:// or on private
 * addresses (two boards on one machine, say) need WEBHOOKS_ALLOW_HTTP=1 and
 * WEBHOOKS_ALLOW_PRIVATE=1 on both.
 */
import process from 'node:process'
import { pathToFileURL } from 'node:url'

/**
 * A board reached as its administrator: `call(method, path, body)` answers the parsed
 * body, or throws naming the error code and the HTTP status.
 *
 * @param {{ url: string, username: string, password: string }} board
 */
export async function signIn ({ url, username, password }) {
  const base = url.endsWith('/') ? url : `${url}/`
  const login = await globalThis.fetch(new URL('api/auth/login', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password })
  })
  const answer = await login.json().catch(() => null)
  if (!login.ok) throw refusal(`signing in to ${url}`, login.status, answer)
  // The session cookie, whatever its name (`__Host-` prefixed over https).
  const cookie = (login.headers.getSetCookie?.() ?? [login.headers.get('set-cookie') ?? '']).map(line => line.split(';')[0]).join('; ')
  async function call (method, path, body) {
    const response = await globalThis.fetch(new URL(path, base), {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const parsed = await response.json().catch(() => null)
    if (!response.ok) throw refusal(`${method} ${url}${path}`, response.status, parsed)
    return parsed
  }
  return { url, call }
}

function refusal (what, status, body) {
  const code = body?.error ?? 'UNKNOWN_ERROR'
  const reason = body?.reason ?? body?.bodyValidationError
  return Object.assign(new Error(`${what}: ${code} (HTTP ${status})${reason === undefined ? '' : `: ${reason}`}`), { code, status, body })
}

/**
 * One direction: shouts of `from`'s room `fromRoom` appear in `to`'s room `toRoom`.
 * Returns what it made, to remove it later (`unbridge`).
 */
async function oneWay (from, fromRoom, to, toRoom, name) {
  // Step 1: on the receiving board, an incoming hook for the room. Its URL is shown once.
  const incoming = await to.call('POST', 'api/panel/shoutbox/incoming', { room: toRoom, name })
  // Step 2: on the sending board, a slack-format webhook for that room's new shouts, to that URL.
  const outgoing = await from.call('POST', 'api/panel/webhooks', { url: incoming.url, events: ['shout.created'], format: 'slack', room: fromRoom })
  return { incomingHookId: incoming.hook.id, webhookId: outgoing.webhook.id }
}

/**
 * Bridges `a`'s room with `b`'s, both ways.
 *
 * @param {object} options
 * @param {{ url: string, username: string, password: string, room?: string, name?: string }} options.a
 *   a board, its administrator, its room (`general` by default) and what its shouts show on the other (`via`)
 * @param {{ url: string, username: string, password: string, room?: string, name?: string }} options.b
 * @returns {Promise<{ aToB: { incomingHookId: number, webhookId: number }, bToA: { incomingHookId: number, webhookId: number }, unbridge: () => Promise<void> }>}
 */
export async function bridgeBoards ({ a, b }) {
  const boardA = await signIn(a)
  const boardB = await signIn(b)
  const roomA = a.room ?? 'general'
  const roomB = b.room ?? 'general'
  const aToB = await oneWay(boardA, roomA, boardB, roomB, a.name ?? `board ${new URL(a.url).host}`)
  const bToA = await oneWay(boardB, roomB, boardA, roomA, b.name ?? `board ${new URL(b.url).host}`)
  async function unbridge () {
    await boardA.call('DELETE', `api/panel/webhooks/${aToB.webhookId}`)
    await boardB.call('DELETE', `api/panel/shoutbox/incoming/${aToB.incomingHookId}`)
    await boardB.call('DELETE', `api/panel/webhooks/${bToA.webhookId}`)
    await boardA.call('DELETE', `api/panel/shoutbox/incoming/${bToA.incomingHookId}`)
  }
  return { aToB, bToA, unbridge }
}

function option (args, name) {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}

async function main () {
  const env = process.env
  const missing = ['A_URL', 'A_ADMIN', 'A_PASSWORD', 'B_URL', 'B_ADMIN', 'B_PASSWORD'].filter(key => !env[key])
  if (missing.length > 0) {
    console.error(`Set ${missing.join(', ')} (see the top of examples/board-bridge.mjs).`)
    process.exit(2)
  }
  const args = process.argv.slice(2)
  const room = option(args, '--room') ?? 'general'
  const made = await bridgeBoards({
    a: { url: env.A_URL, username: env.A_ADMIN, password: env.A_PASSWORD, room },
    b: { url: env.B_URL, username: env.B_ADMIN, password: env.B_PASSWORD, room: option(args, '--other-room') ?? room }
  })
  console.log(`Bridged. A→B: webhook ${made.aToB.webhookId} on A, incoming hook ${made.aToB.incomingHookId} on B; B→A: webhook ${made.bToA.webhookId} on B, incoming hook ${made.bToA.incomingHookId} on A.`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch(error => {
    console.error(error.message)
    process.exit(1)
  })
}
