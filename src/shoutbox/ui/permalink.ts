import { KnownUsers } from '../../sdk/rich-text.js'
import { h } from '../../sdk/ui.js'
import type { FullShout } from '../schemas.js'
import { archiveOf, ownTag, pageLocale, quoteLine, reactionCounts, shoutText, useStylesheet } from './shared/shout-view.js'
import { shoutboxStrings } from './strings.js'
import { pictureGallery } from './shared/pictures.js'

/**
 * A shout's own page, /shouts/<id> (the theme's shout.html loads it):
 *   <script type="module" src="/addons/shoutbox/ui/permalink.js" data-shoutbox-permalink></script>
 * The shout, who posted it, in which room and exactly when, and the way back to its room's archive.
 */

const here = import.meta.url
const locale = pageLocale()
const t = shoutboxStrings(locale)
useStylesheet('palette.css', here)
useStylesheet('history.css', here)
useStylesheet('pictures.css', here)

const id = /^\/shouts\/([0-9]{1,15})\/?$/.exec(location.pathname)?.[1]
const body = h('div', { role: 'status', 'aria-live': 'polite' })
const back = h('a', { href: '/shouts' }, t('history.back'))
const page = h('div', { class: 'shoutbox-history' }, body, h('p', { class: 'back' }, back))
const tag = ownTag('data-shoutbox-permalink', here)
if (tag !== undefined) tag.after(page)
else document.body.append(page)

/** The site's own title, which the shout's goes before. */
const siteTitle = document.title

/** The rooms' names by slug, once the server has said (the reader's rooms). */
let roomNames = new Map<string, string>()

function show (shout: FullShout, isUser?: (name: string) => boolean): void {
  const date = new Date(shout.date)
  const title = t('history.shoutBy', { username: shout.username })
  document.title = `${title} · ${siteTitle}`
  body.replaceChildren(h('article', { class: 'shoutbox-permalink', 'aria-labelledby': 'shoutbox-permalink-title' },
    h('h1', { id: 'shoutbox-permalink-title' }, title),
    shout.replyTo === null ? null : quoteLine(shout.replyTo, locale),
    h('p', { class: 'text' }, shoutText(shout.message, locale, isUser)),
    pictureGallery(shout.uploads, locale),
    h('p', { class: 'meta' },
      h('time', { datetime: date.toISOString() }, date.toLocaleString(locale, { dateStyle: 'full', timeStyle: 'short' })), ' · ',
      h('a', { class: 'room', href: archiveOf(shout.room) },
        t('history.inRoom', { name: roomNames.get(shout.room) ?? shout.room }))),
    reactionCounts(shout.reactions, locale)))
  back.setAttribute('href', archiveOf(shout.room))
}

async function load (): Promise<void> {
  if (id === undefined) {
    body.replaceChildren(h('p', { class: 'empty' }, t('history.missing')))
    return
  }
  try {
    const response = await fetch(`/api/shoutbox/shouts/${id}`)
    if (response.status === 404) {
      body.replaceChildren(h('h1', {}, t('history.title')), h('p', { class: 'empty' }, t('history.missing')))
      return
    }
    if (!response.ok) throw new Error(String(response.status))
    const { shout } = await response.json() as { shout: FullShout }
    show(shout)
    roomNames = await readRoomNames()
    show(shout)
    const known = new KnownUsers()
    if (await known.learn([shout.message])) show(shout, known.isUser)
  } catch {
    body.replaceChildren(h('p', { class: 'message error' }, t('history.failed')))
  }
}

async function readRoomNames (): Promise<Map<string, string>> {
  try {
    const response = await fetch('/api/shoutbox/rooms', { credentials: 'same-origin' })
    if (!response.ok) return roomNames
    const { rooms } = await response.json() as { rooms: Array<{ slug: string, name: string }> }
    return new Map(rooms.map(room => [room.slug, room.name]))
  } catch {
    return roomNames
  }
}

void load()
