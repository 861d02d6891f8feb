import { HOST_ID } from '../addons/loader.js'
import type { I18n } from '../services/i18n.js'

/** A mail's words: subject, paragraphs, and at most one link to follow. */
export interface Composed {
  readonly subject: string
  readonly text: string
  readonly html: string
}

export type MailKind = 'password-reset' | 'email-change' | 'email-change-notice' | 'verify-email' | 'test'
export type ListMailKind = 'mentions' | 'mentions-daily'

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

/**
 * The mail `kind` in `locale`, from the host's strings (`mail.<kind>.subject`,
 * `mail.<kind>.body`, `mail.<kind>.after`): plain text and HTML that say the same, the
 * link (when there is one) on its own line, values escaped in the HTML.
 */
export function composeMail (i18n: I18n, locale: string, kind: MailKind, values: Record<string, string>, link?: string): Composed {
  const t = (key: string): string => i18n.t(HOST_ID, locale, `mail.${kind}.${key}`, values)
  const footer = i18n.t(HOST_ID, locale, 'mail.footer', values)
  const paragraphs = [t('body'), ...(link === undefined ? [] : [link]), t('after')].filter(p => p !== '' && !p.startsWith('mail.'))
  const text = [...paragraphs, '-- ', footer].join('\n\n') + '\n'
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">',
    ...paragraphs.map(p => p === link
      ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`
      : `<p>${escapeHtml(p)}</p>`),
    `<p style="color: #555">${escapeHtml(footer)}</p>`,
    '</body></html>'
  ].join('\n')
  return { subject: t('subject'), text, html }
}

/** A line of a list mail, with the link it leads to. */
export interface ListItem {
  readonly text: string
  readonly link?: string | undefined
}

/**
 * A mail that lists things (`mail.<kind>.subject`, `.body`, `.more`, `.after`): each item
 * its own paragraph with its link, then a closing paragraph with its own link (how to stop
 * these mails), plain text and HTML alike, values escaped in the HTML.
 */
export function composeList (i18n: I18n, locale: string, kind: ListMailKind, values: Record<string, string | number>, items: readonly ListItem[], closing: Required<ListItem>): Composed {
  const t = (key: string): string => i18n.t(HOST_ID, locale, `mail.${kind}.${key}`, values)
  const footer = i18n.t(HOST_ID, locale, 'mail.footer', values)
  const more = Number(values.more ?? 0) > 0 ? t('more') : ''
  const text = [
    t('body'),
    ...items.map(item => item.link === undefined ? item.text : `${item.text}\n${item.link}`),
    ...(more === '' ? [] : [more]),
    t('after'),
    `${closing.text}\n${closing.link}`,
    '-- ',
    footer
  ].join('\n\n') + '\n'
  const link = (href: string): string => `<a href="${escapeHtml(href)}">${escapeHtml(href)}</a>`
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">',
    `<p>${escapeHtml(t('body'))}</p>`,
    '<ul>',
    ...items.map(item => `<li>${item.link === undefined ? escapeHtml(item.text) : `<a href="${escapeHtml(item.link)}">${escapeHtml(item.text)}</a>`}</li>`),
    '</ul>',
    ...(more === '' ? [] : [`<p>${escapeHtml(more)}</p>`]),
    `<p>${escapeHtml(t('after'))}</p>`,
    `<p style="color: #555">${escapeHtml(closing.text)} ${link(closing.link)}</p>`,
    `<p style="color: #555">${escapeHtml(footer)}</p>`,
    '</body></html>'
  ].join('\n')
  return { subject: t('subject'), text, html }
}
