import type { WebhookFormat } from './outbox.js'

/** One claimed delivery, as its body is made from it. */
export interface Deliverable {
  readonly id: string
  readonly event: string
  readonly createdAt: number
  readonly data: unknown
}

/** Discord refuses a message's `content` past this many characters. */
const DISCORD_CONTENT_MAX = 2000
/** Discord and Slack show at most this much of a sender's name. */
const NAME_MAX = 80
/** Slack's text may be far longer; a board's shouts never are (10,000 at most). */
const SLACK_TEXT_MAX = 40_000

/** What a ping says in a chat channel: the panel's "Send a ping" shows where the hook posts. */
const PING_TEXT = 'Shoutbox: a test message from the webhooks page.'

/**
 * The body of a delivery as a hook of `format` receives it, or null when there is nothing
 * to send in that format (a shout deleted before it was sent; an event a chat channel has
 * no message for): such a delivery is done without a request.
 *
 * - `shoutbox`: `{id, event, createdAt, data}`.
 * - `slack`: `{text, username}` — the shout's text as written, with the three characters
 *   Slack reads as markup (`&`, `<`, `>`) escaped as Slack asks, so it shows the text as
 *   it was written and `<!channel>` pings nobody.
 * - `discord`: `{content, username, allowed_mentions: {parse: []}}` — the text as
 *   written (cut to Discord's 2,000 characters), mentioning nobody, under a name Discord
 *   takes.
 *
 * A shout's markup (`**bold**`, links) is sent as the text it is, never as HTML.
 */
export function deliveryBody (format: WebhookFormat, delivery: Deliverable): string | null {
  if (format === 'shoutbox') return JSON.stringify({ id: delivery.id, event: delivery.event, createdAt: delivery.createdAt, data: delivery.data })
  const said = chatMessage(delivery)
  if (said === null) return null
  if (format === 'slack') return JSON.stringify({ text: slackText(cut(said.text, SLACK_TEXT_MAX)), username: cut(said.username, NAME_MAX) })
  return JSON.stringify({ content: cut(said.text, DISCORD_CONTENT_MAX), username: discordName(said.username), allowed_mentions: { parse: [] } })
}

/** The text and the sender's name a chat channel shows for a delivery, or null for none. */
function chatMessage ({ event, data }: Deliverable): { text: string, username: string } | null {
  if (event === 'ping') return { text: PING_TEXT, username: 'Shoutbox' }
  if (event !== 'shout.created' || typeof data !== 'object' || data === null) return null
  const { message, username } = data as { message?: unknown, username?: unknown }
  if (typeof message !== 'string' || typeof username !== 'string') return null
  return { text: message, username }
}

/** Slack's escaping of its three control characters, and nothing else (it is not HTML). */
export function slackText (text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** `text` cut to `max` code points, the cut marked with `…`. */
function cut (text: string, max: number): string {
  const points = [...text]
  return points.length <= max ? text : points.slice(0, max - 1).join('') + '…'
}

/**
 * A name Discord takes for a webhook's message: 1–80 characters, none of `@ # :` or
 * "```", not containing "discord" or "clyde", not "everyone" or "here". Discord refuses
 * the whole message (400) otherwise, and the delivery would fail every try.
 */
export function discordName (username: string): string {
  const cleaned = username.replace(/[@#:]|```/g, '').replace(/discord|clyde/gi, word => `${word.slice(0, 1)}-${word.slice(1)}`).trim()
  const name = cut(cleaned, NAME_MAX)
  if (name === '' || /^(everyone|here)$/i.test(name)) return `${name}${name === '' ? '' : ' '}(Shoutbox)`.trim()
  return name
}
