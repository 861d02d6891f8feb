import { richText } from '../../../sdk/rich-text.js'
import { h, relativeTime } from '../../../sdk/ui.js'
import type { Shout } from '../../schemas.js'
import { shoutboxStrings } from '../strings.js'

/** The language of the page a module is on: the theme's `lang`, else the browser's. */
export function pageLocale (): string {
  return (document.documentElement.lang || navigator.language).toLowerCase().startsWith('tr') ? 'tr' : 'en'
}

/** Where a shout's own page is. */
export const permalinkOf = (id: number): string => `/shouts/${id}`

/** The default room's slug: what the pages show when no room is named. */
export const DEFAULT_ROOM = 'general'

/** A room's slug: lower-case letters, digits and dashes (schemas.ts's SLUG_PATTERN, kept out of the pages' bundle). */
export const isRoomSlug = (text: string): boolean => /^[a-z0-9][a-z0-9-]{0,31}$/.test(text)

/** Where a room's archive is (the default room's is the plain `/shouts`). */
export const archiveOf = (room: string): string => room === DEFAULT_ROOM ? '/shouts' : `/shouts?room=${encodeURIComponent(room)}`

/** The module's own `<script>` tag: the pages place what they draw right after it. */
export function ownTag (attribute: string, moduleUrl: string): HTMLScriptElement | undefined {
  return [...document.querySelectorAll<HTMLScriptElement>(`script[${attribute}]`)].find(s => new URL(s.src, location.href).href === moduleUrl)
}

/** The stylesheet next to a module, once. */
export function useStylesheet (name: string, moduleUrl: string): void {
  const href = new URL(`./${name}`, moduleUrl).href
  if (document.querySelector(`link[href="${href}"]`) === null) document.head.append(h('link', { rel: 'stylesheet', href }))
}

/**
 * One shout: its text (as text, with its links and the mentions `isUser` knows), its
 * author, and when it was posted, which links to its permalink page ("3 minutes ago",
 * the full date on hover).
 */
export function shoutItem (shout: Shout, locale: string, isUser?: (name: string) => boolean, tag = 'li'): HTMLElement {
  const date = new Date(shout.date)
  const t = shoutboxStrings(locale)
  return h(tag, { class: 'shout' },
    h('p', { class: 'text' }, richText(shout.message, isUser)),
    h('p', { class: 'meta' }, h('span', { class: 'author' }, shout.username), ' · ',
      h('a', { class: 'permalink', href: permalinkOf(shout.id), title: t('history.permalink') },
        h('time', { datetime: date.toISOString(), title: date.toLocaleString(locale) }, relativeTime(shout.date, locale)))))
}
