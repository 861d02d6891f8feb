import { KnownUsers } from '../../sdk/rich-text.js'
import { h } from '../../sdk/ui.js'
import type { Shout } from '../schemas.js'
import { DEFAULT_ROOM, isRoomSlug, ownTag, pageLocale, shoutItem, useStylesheet } from './shared/shout-view.js'
import { shoutboxStrings } from './strings.js'

/**
 * The archive page, /shouts (the theme's shouts.html loads it):
 *   <script type="module" src="/addons/shoutbox/ui/archive.js" data-shoutbox-archive></script>
 * A room to read (the default one unless `room` names another), a search box and every
 * shout of that room, newest first, a page at a time, each linking to its permalink.
 * The address holds the page (`room`, `q`, `before`, and `newer`: the `before` of each
 * newer page walked through, so "Newer shouts" goes back one page), so a reload, a link
 * or the Back button from a permalink shows the same page.
 */

const PAGE_SIZE = 20
/** Newer pages remembered in the address; from deeper, "Newer shouts" leads to the newest page. */
const MAX_TRAIL = 50

const here = import.meta.url
const locale = pageLocale()
const t = shoutboxStrings(locale)
useStylesheet('palette.css', here)
useStylesheet('history.css', here)
useStylesheet('pictures.css', here)

const params = new URLSearchParams(location.search)
const q = (params.get('q') ?? '').trim()
const room = isRoomSlug(params.get('room') ?? '') ? params.get('room')! : DEFAULT_ROOM
const before = /^[0-9]{1,15}$/.test(params.get('before') ?? '') ? params.get('before')! : undefined
const trail = (params.get('newer') ?? '').split(',').filter(id => /^[0-9]{1,15}$/.test(id))

/** The address of a page of this archive. */
function pageUrl (pageBefore: string | undefined, newer: readonly string[]): string {
  const query = new URLSearchParams()
  if (room !== DEFAULT_ROOM) query.set('room', room)
  if (q !== '') query.set('q', q)
  if (pageBefore !== undefined) query.set('before', pageBefore)
  if (newer.length > 0) query.set('newer', newer.slice(-MAX_TRAIL).join(','))
  const text = query.toString()
  return text === '' ? '/shouts' : `/shouts?${text}`
}

const search = h('input', { type: 'search', id: 'shoutbox-q', name: 'q', maxlength: 200, value: q, autocomplete: 'off' }) as HTMLInputElement
search.setAttribute('aria-describedby', 'shoutbox-q-hint')
// Which room: the rooms the reader may read, filled in once the server says (the default room until then).
const roomChoice = h('select', { id: 'shoutbox-room', name: 'room' }, h('option', { value: room, selected: true }, room === DEFAULT_ROOM ? 'General' : room)) as HTMLSelectElement
// Choosing a room shows it at once (its newest page, with the words searched).
roomChoice.addEventListener('change', () => (form as HTMLFormElement).requestSubmit())
// A plain GET form: searching is following a link to /shouts?room=…&q=…
const form = h('form', { class: 'shoutbox-search', role: 'search', method: 'get', action: '/shouts' },
  h('label', { for: 'shoutbox-room' }, t('history.room')), roomChoice,
  h('label', { for: 'shoutbox-q' }, t('history.search')),
  h('div', { class: 'row' }, search, h('button', { type: 'submit' }, t('history.searchButton'))),
  h('p', { class: 'hint', id: 'shoutbox-q-hint' }, t('history.searchHint')))
const status = h('div', { role: 'status', 'aria-live': 'polite' })
const list = h('ol', { class: 'shoutbox-archive-list' })
const pager = h('nav', { class: 'shoutbox-pager', 'aria-label': t('history.pages') })
const heading = q === '' ? t('history.title') : t('history.results', { q })
const headingElement = h('h1', {}, heading)
const page = h('div', { class: 'shoutbox-history' }, headingElement, form, status, list, pager)
const tag = ownTag('data-shoutbox-archive', here)
if (tag !== undefined) tag.after(page)
else document.body.append(page)
document.title = `${heading} · ${document.title}`

async function load (): Promise<void> {
  const query = new URLSearchParams({ room, limit: String(PAGE_SIZE) })
  if (before !== undefined) query.set('before', before)
  if (q !== '') query.set('q', q)
  let body: { shouts: Shout[], next: number | null }
  try {
    const response = await fetch(`/api/shoutbox/archive?${query.toString()}`)
    // A room that does not exist, or that this reader may not read: the same words for both.
    if (response.status === 404) {
      status.replaceChildren(h('p', { class: 'empty' }, t('history.noRoom')))
      return
    }
    if (!response.ok) throw new Error(String(response.status))
    body = await response.json() as typeof body
  } catch {
    status.replaceChildren(h('p', { class: 'message error' }, t('history.failed')))
    return
  }
  // A search that stopped before the first shout says so, and goes on from there when asked.
  const searchGoesOn = q !== '' && body.next !== null && body.shouts.length < PAGE_SIZE
  if (body.shouts.length === 0) status.replaceChildren(h('p', { class: 'empty' }, q === '' ? t('history.empty') : searchGoesOn ? t('history.notFoundYet') : t('history.noResults')))
  const known = new KnownUsers()
  const draw = (): void => list.replaceChildren(...body.shouts.map(shout => shoutItem(shout, locale, known.isUser)))
  draw()
  const newerLink = before === undefined
    ? null
    : h('a', { class: 'newer', rel: 'prev', href: pageUrl(trail.at(-1), trail.slice(0, -1)) }, t('history.newer'))
  const olderLink = body.next === null
    ? null
    : h('a', { class: 'older', rel: 'next', href: pageUrl(String(body.next), before === undefined ? [] : [...trail, before]) }, t(searchGoesOn ? 'history.searchOlder' : 'history.older'))
  pager.replaceChildren(...[newerLink, olderLink].filter(link => link !== null))
  // Mentions of real accounts are highlighted once the host has said which names are accounts.
  if (await known.learn(body.shouts.map(shout => shout.message))) draw()
}

/** The rooms the reader may read, as choices; the one shown stays chosen. */
async function loadRooms (): Promise<void> {
  try {
    const response = await fetch('/api/shoutbox/rooms', { credentials: 'same-origin' })
    if (!response.ok) return
    const { rooms } = await response.json() as { rooms: Array<{ slug: string, name: string }> }
    const known = rooms.some(each => each.slug === room)
    const options = rooms.map(each => h('option', { value: each.slug, selected: each.slug === room }, each.name))
    if (!known) options.push(h('option', { value: room, selected: true }, room))
    roomChoice.replaceChildren(...options)
    const name = rooms.find(each => each.slug === room)?.name
    if (name !== undefined && rooms.length > 1) headingElement.after(h('p', { class: 'shoutbox-room-name' }, t('history.inRoom', { name })))
  } catch {
    // the default room's name stays; the shouts do not depend on it
  }
}

void loadRooms()
void load()
