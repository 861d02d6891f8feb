import { h, relativeTime } from '../../sdk/ui.js'
import type { Shout } from '../schemas.js'
import { shoutboxStrings } from './strings.js'

/**
 * The theme widget. A theme embeds it with one tag:
 *   <script type="module" src="/addons/shoutbox/ui/widget.js" data-shoutbox></script>
 * It shows the latest shouts where the tag is and keeps them current: live through the
 * event stream, or by revalidating the list (ETag) every 15 s when the stream is down.
 */

const here = new URL(import.meta.url)
const tag = [...document.querySelectorAll<HTMLScriptElement>('script[data-shoutbox]')].find(s => new URL(s.src, location.href).href === here.href)
const locale = (document.documentElement.lang || navigator.language).toLowerCase().startsWith('tr') ? 'tr' : 'en'
const t = shoutboxStrings(locale)

document.head.append(h('link', { rel: 'stylesheet', href: new URL('./widget.css', here).href }))
const list = h('ol', { class: 'shoutbox-list' })
const widget = h('section', { class: 'shoutbox-widget', 'aria-labelledby': 'shoutbox-title' },
  h('h2', { id: 'shoutbox-title' }, t('widget.title')), list)
if (tag !== undefined) tag.after(widget)
else document.body.append(widget)

let shouts: Shout[] = []
const render = (): void => {
  list.replaceChildren(...(shouts.length === 0
    ? [h('li', { class: 'empty' }, t('widget.empty'))]
    : shouts.map(shout => h('li', {},
      h('p', { class: 'text' }, shout.message),
      h('p', { class: 'meta' }, h('span', { class: 'author' }, shout.username), ' · ',
        h('time', { datetime: new Date(shout.date).toISOString(), title: new Date(shout.date).toLocaleString(locale) }, relativeTime(shout.date, locale)))))))
}

let loading = false
const load = async (): Promise<void> => {
  if (loading) return
  loading = true
  try {
    // `no-cache`: the browser revalidates with If-None-Match; an unchanged list costs a 304.
    const response = await fetch('/api/shoutbox/list', { cache: 'no-cache' })
    if (response.ok) {
      shouts = (await response.json() as { shouts: Shout[] }).shouts
      render()
    }
  } catch {
    // Offline for a moment: the next refresh tries again.
  } finally {
    loading = false
  }
}

let polling: ReturnType<typeof setInterval> | undefined
const poll = (): void => { polling ??= setInterval(() => void load(), 15_000) }
if ('EventSource' in window) {
  const stream = new EventSource('/api/shoutbox/stream')
  stream.addEventListener('shout-created', () => void load())
  stream.addEventListener('shout-deleted', () => void load())
  stream.addEventListener('open', () => {
    if (polling !== undefined) clearInterval(polling)
    polling = undefined
    void load()
  })
  stream.addEventListener('error', poll)
} else {
  poll()
}
setInterval(render, 30_000) // keeps "2 minutes ago" true
void load()
