import { plainExcerpt, richText, type RichTextWords } from '../../../sdk/rich-text.js'
import { h, relativeTime } from '../../../sdk/ui.js'
import type { FullShout, Reaction, ReplyTo, Shout } from '../../schemas.js'
import { shoutboxStrings } from '../strings.js'
import { pictureGallery } from './pictures.js'

/** The language of the page a module is on: the theme's `lang`, else the browser's. */
export function pageLocale (): string {
  return document.documentElement.lang || 'en'
}

/** What shout text's formatting says in words (a spoiler's button), in `locale`. */
export const textWords = (locale: string): RichTextWords => ({ spoiler: shoutboxStrings(locale)('shout.spoiler') })

/** A shout's text drawn (its formatting, links and the mentions `isUser` knows), the same on every page. */
export const shoutText = (message: string, locale: string, isUser?: (name: string) => boolean): DocumentFragment => richText(message, isUser, textWords(locale))

/** The first words of a shout as a quote shows them: no markers, no spoiler's words. */
export const quotedWords = (excerpt: string, locale: string): string => plainExcerpt(excerpt, textWords(locale))

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
 * After the author's name: a badge saying a bot account posted it (through an API token),
 * which incoming hook (a bridge) it came in through, or that a guest wrote it; nothing for
 * a member's shout.
 */
export function botBadge (shout: object, t: (key: string, values?: Record<string, unknown>) => string): HTMLElement | null {
  if ('via' in shout && typeof shout.via === 'string') return h('span', { class: 'shoutbox-bot', title: t('shout.viaTitle', { name: shout.via }) }, t('shout.via', { name: shout.via }))
  if ('guest' in shout && shout.guest === true) return h('span', { class: 'shoutbox-bot shoutbox-guest', title: t('shout.guestTitle') }, t('shout.guest'))
  return 'bot' in shout && shout.bot === true ? h('span', { class: 'shoutbox-bot', title: t('shout.botTitle') }, t('shout.bot')) : null
}

/**
 * The line a reply shows above its text: who it answers and their first words, a link to
 * the original's permalink (or, the original deleted, that it was). `onOpen` may show the
 * original in place (the widget scrolls to it) instead of following the link.
 */
export function quoteLine (replyTo: NonNullable<ReplyTo>, locale: string, onOpen?: (id: number, event: MouseEvent) => void): HTMLElement {
  const t = shoutboxStrings(locale)
  if ('deleted' in replyTo) return h('p', { class: 'quote deleted' }, t('shout.replyToDeleted'))
  return h('p', { class: 'quote' },
    h('a', { href: permalinkOf(replyTo.id), onclick: onOpen === undefined ? undefined : (event: MouseEvent) => onOpen(replyTo.id, event) },
      h('span', { class: 'quote-author' }, t('shout.replyTo', { username: replyTo.username })), ' ',
      h('q', {}, quotedWords(replyTo.excerpt, locale))))
}

/** What a screen reader says of one emoji's reactions. */
export function reactionLabel (reaction: Reaction, locale: string): string {
  return shoutboxStrings(locale)(reaction.mine === true ? 'shout.reactionCountMine' : 'shout.reactionCount', { emoji: reaction.emoji, count: reaction.count })
}

/** A shout's reaction counts to read (no buttons): each emoji and how many. Nothing when it has none. */
export function reactionCounts (reactions: readonly Reaction[], locale: string): HTMLElement | null {
  if (reactions.length === 0) return null
  return h('ul', { class: 'reactions', 'aria-label': shoutboxStrings(locale)('shout.reactions') },
    ...reactions.map(reaction => h('li', { class: reaction.mine === true ? 'reaction mine' : 'reaction' },
      h('span', { 'aria-hidden': 'true' }, `${reaction.emoji} ${reaction.count}`),
      h('span', { class: 'sr' }, reactionLabel(reaction, locale)))))
}

/**
 * One shout: what it answers (a quoted line), its text (as text, with its links and the
 * mentions `isUser` knows), its author, when it was posted, which links to its permalink
 * page ("3 minutes ago", the full date on hover), its pictures (thumbnails that open full
 * size; `origin` before the board's urls, on another site) and its reactions.
 */
export function shoutItem (shout: Shout | FullShout, locale: string, isUser?: (name: string) => boolean, tag = 'li', origin = ''): HTMLElement {
  const date = new Date(shout.date)
  const t = shoutboxStrings(locale)
  const replyTo = 'replyTo' in shout ? shout.replyTo : null
  return h(tag, { class: 'shout' },
    replyTo === null ? null : quoteLine(replyTo, locale),
    h('p', { class: 'text' }, shoutText(shout.message, locale, isUser)),
    pictureGallery('uploads' in shout ? shout.uploads : undefined, locale, origin),
    h('p', { class: 'meta' }, h('span', { class: 'author' }, shout.username), botBadge(shout, t), ' · ',
      h('a', { class: 'permalink', href: permalinkOf(shout.id), title: t('history.permalink') },
        h('time', { datetime: date.toISOString(), title: date.toLocaleString(locale) }, relativeTime(shout.date, locale)))),
    'reactions' in shout ? reactionCounts(shout.reactions, locale) : null)
}
