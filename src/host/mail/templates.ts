import { HOST_ID } from '../addons/loader.js'
import type { I18n } from '../services/i18n.js'

/** A mail's words: subject, paragraphs, and at most one link to follow. */
export interface Composed {
  readonly subject: string
  readonly text: string
  readonly html: string
}

export type MailKind = 'password-reset' | 'email-change' | 'email-change-notice' | 'test'

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
