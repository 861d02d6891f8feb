import { h } from '../../sdk/ui.js'
import type { Shout } from '../schemas.js'
import { ownTag, pageLocale, shoutItem, useStylesheet } from './shared/shout-view.js'
import { shoutboxStrings } from './strings.js'

/**
 * The theme widget. A theme embeds it with one tag:
 *   <script type="module" src="/addons/shoutbox/ui/widget.js" data-shoutbox></script>
 * It shows the pinned shouts, then the latest, where the tag is and keeps them current:
 * live through the event stream, or by revalidating (ETag) every 15 s when the stream is
 * down. Each shout links to its permalink page, and the widget to the archive.
 */

const here = import.meta.url
const tag = ownTag('data-shoutbox', here)
const locale = pageLocale()
const t = shoutboxStrings(locale)

useStylesheet('widget.css', here)
const list = h('ol', { class: 'shoutbox-list' })
const pinnedList = h('ol', { class: 'shoutbox-list' })
// A region of its own, named "Pinned", so a screen reader announces it as such.
const pinnedBox = h('section', { class: 'shoutbox-pinned', 'aria-labelledby': 'shoutbox-pinned-title', hidden: true },
  h('p', { class: 'label', id: 'shoutbox-pinned-title' }, h('span', { class: 'pin', 'aria-hidden': 'true' }), t('widget.pinned')), pinnedList)
const widget = h('section', { class: 'shoutbox-widget', 'aria-labelledby': 'shoutbox-title' },
  h('h2', { id: 'shoutbox-title' }, t('widget.title')), pinnedBox, list,
  h('p', { class: 'shoutbox-more' }, h('a', { href: '/shouts' }, t('widget.all'))))
if (tag !== undefined) tag.after(widget)
else document.body.append(widget)

let shouts: Shout[] = []
let pinned: Shout[] = []
const render = (): void => {
  pinnedBox.hidden = pinned.length === 0
  pinnedList.replaceChildren(...pinned.map(shout => shoutItem(shout, locale)))
  // A pinned shout is shown once, among the pinned.
  const latest = shouts.filter(shout => !pinned.some(p => p.id === shout.id))
  list.replaceChildren(...(latest.length === 0 && pinned.length === 0
    ? [h('li', { class: 'empty' }, t('widget.empty'))]
    : latest.map(shout => shoutItem(shout, locale))))
}

/** Reads `url` (revalidating: an unchanged answer costs a 304) and keeps its shouts; a second call while one runs is folded into it. */
function loader (url: string, keep: (shouts: Shout[]) => void): () => Promise<void> {
  let loading = false
  return async () => {
    if (loading) return
    loading = true
    try {
      const response = await fetch(url, { cache: 'no-cache' })
      if (response.ok) {
        keep((await response.json() as { shouts: Shout[] }).shouts)
        render()
      }
    } catch {
      // Offline for a moment: the next refresh tries again.
    } finally {
      loading = false
    }
  }
}
const loadList = loader('/api/shoutbox/list', loaded => { shouts = loaded })
const loadPinned = loader('/api/shoutbox/pinned', loaded => { pinned = loaded })
const loadAll = (): void => {
  void loadList()
  void loadPinned()
}

let polling: ReturnType<typeof setInterval> | undefined
const poll = (): void => { polling ??= setInterval(loadAll, 15_000) }
if ('EventSource' in window) {
  const stream = new EventSource('/api/shoutbox/stream')
  stream.addEventListener('shout-created', () => void loadList())
  // A deleted or edited shout may be a pinned one.
  for (const event of ['shout-deleted', 'shout-edited']) stream.addEventListener(event, loadAll)
  for (const event of ['shout-pinned', 'shout-unpinned']) stream.addEventListener(event, () => void loadPinned())
  stream.addEventListener('open', () => {
    if (polling !== undefined) clearInterval(polling)
    polling = undefined
    loadAll()
  })
  stream.addEventListener('error', poll)
} else {
  poll()
}
setInterval(render, 30_000) // keeps "2 minutes ago" true
loadAll()
