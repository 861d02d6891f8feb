/**
 * `<script src="https://board.example.org/embed.js" data-room="general" async></script>`
 * on a page of another site (one of `EMBED_ORIGINS`): the room's latest shouts, read-only
 * and live, drawn right after the tag in a shadow root (the page's styles do not reach
 * in, the board's do not leak out), with a link to join the conversation on the board.
 * It reads the board as a visitor does, without credentials.
 *
 *   data-room   the room's address name (the default room when absent)
 *   data-limit  how many shouts it shows, 1–50 (10 when absent)
 *   data-lang   its language (the page's `lang`, else the browser's, when absent): the
 *               board's strings in it are fetched from the board (English is built in)
 *
 * The page restyles it through the board's custom properties (`--shoutbox-*`), set on
 * the element it adds (`.shoutbox-embed`) or on any ancestor.
 */
import { h } from '../../../sdk/ui.js'
import { shoutboxStrings, useStrings } from '../strings.js'
import { LiveShouts } from '../shared/live-shouts.js'
import { DEFAULT_ROOM, isRoomSlug, pageLocale, shoutItem } from '../shared/shout-view.js'
import palette from '../palette.css'
import pictures from '../pictures.css'
import widget from '../widget.css'

/** Languages written right to left: the embed's box mirrors for them. */
const RIGHT_TO_LEFT = /^(ar|fa|he|ur)(-|$)/i

const DEFAULT_LIMIT = 10
const MAX_LIMIT = 50

/** What the shadow root adds to the widget's own stylesheet. */
const EMBED_CSS = `
:host { display: block; color-scheme: light dark; font-family: inherit; }
.shoutbox-widget h2 { display: flex; flex-wrap: wrap; gap: .25rem .6rem; align-items: baseline; }
.shoutbox-embed-join { margin: .6rem 0 0; font-size: .9rem; }
`

/** The board's strings in the embed's language (`GET /api/strings/shoutbox/:locale`); English when it has none. */
async function embedLocale (script: HTMLScriptElement, origin: string): Promise<string> {
  const asked = script.dataset.lang ?? (pageLocale() || navigator.language)
  if (asked.toLowerCase().startsWith('en')) return 'en'
  try {
    const response = await fetch(`${origin}/api/strings/shoutbox/${encodeURIComponent(asked)}`, { credentials: 'omit' })
    if (!response.ok) return 'en'
    const body = await response.json() as { locale: string, strings: Record<string, string> }
    useStrings(body.locale, body.strings)
    return body.locale
  } catch {
    return 'en'
  }
}

async function embed (script: HTMLScriptElement): Promise<void> {
  const origin = new URL(script.src).origin
  const room = isRoomSlug(script.dataset.room ?? '') ? script.dataset.room! : DEFAULT_ROOM
  const asked = Number(script.dataset.limit ?? DEFAULT_LIMIT)
  const limit = Number.isInteger(asked) ? Math.min(Math.max(asked, 1), MAX_LIMIT) : DEFAULT_LIMIT
  const host = h('div', { class: 'shoutbox-embed' })
  script.after(host)
  const locale = await embedLocale(script, origin)
  const t = shoutboxStrings(locale)
  host.lang = locale
  host.dir = RIGHT_TO_LEFT.test(locale) ? 'rtl' : 'ltr'
  const shadow = host.attachShadow({ mode: 'open' })
  // Constructed, so a page whose CSP forbids inline styles still draws it.
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(palette.replaceAll(':root', ':host') + widget + pictures + EMBED_CSS)
  shadow.adoptedStyleSheets = [sheet]

  const title = h('span', {}, t('embed.title', { room }))
  const list = h('ul', { class: 'shoutbox-list', 'aria-busy': 'true' })
  const join = h('a', { href: `${origin}/` }, t('embed.join')) as HTMLAnchorElement
  shadow.append(h('section', { class: 'shoutbox-widget', 'aria-label': t('widget.title') },
    h('h2', {}, title),
    list,
    h('p', { class: 'shoutbox-embed-join' }, join)))

  const draw = (): void => {
    list.removeAttribute('aria-busy')
    const shown = live.shouts.slice(0, limit)
    if (shown.length === 0) {
      list.replaceChildren(h('li', { class: 'empty' }, live.loaded ? t('widget.empty') : t('embed.loading')))
      return
    }
    list.replaceChildren(...shown.map(shout => {
      const item = shoutItem(shout, locale, undefined, 'li', origin)
      // The board's own links (a shout's page, a quoted shout) lead to the board.
      for (const link of item.querySelectorAll<HTMLAnchorElement>('a[href^="/"]')) link.href = origin + link.getAttribute('href')!
      return item
    }))
  }
  const live = new LiveShouts({ room, origin, changed: draw })
  draw()
  live.start()

  // The room's name, and whether a visitor may read it at all.
  void fetch(`${origin}/api/shoutbox/rooms`, { credentials: 'omit' })
    .then(async response => response.ok ? (await response.json() as { rooms: Array<{ slug: string, name: string }> }).rooms : undefined)
    .catch(async () => {
      // Refused by CORS (this page's origin is not in the board's EMBED_ORIGINS) looks like
      // a network failure to a script; a request the page may not read tells them apart.
      const reachable = await fetch(`${origin}/api/health`, { mode: 'no-cors', credentials: 'omit' }).then(() => true, () => false)
      live.stop()
      list.removeAttribute('aria-busy')
      list.replaceChildren(h('li', { class: 'empty' }, reachable ? t('embed.notAllowed', { site: location.origin }) : t('embed.unreachable'), ' ',
        h('a', { href: `${origin}/` }, t('embed.openBoard'))))
      return undefined
    })
    .then(rooms => {
      if (rooms === undefined) return
      const found = rooms.find(r => r.slug === room)
      if (found === undefined) {
        live.stop()
        list.replaceChildren(h('li', { class: 'empty' }, t('embed.unavailable')))
        return
      }
      title.textContent = t('embed.title', { room: found.name })
      join.href = room === DEFAULT_ROOM ? `${origin}/` : `${origin}/?room=${encodeURIComponent(room)}`
    })
}

const script = document.currentScript
if (script instanceof HTMLScriptElement && script.src !== '') void embed(script)
