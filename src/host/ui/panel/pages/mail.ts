import { h, outcome, relativeTime, type ApiAnswer } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { buttonAction } from '../button-action.js'
import { errorText, type T } from '../strings.js'

interface Settings { available: boolean, transport: 'smtp' | 'log' | 'none', server: string | null, from: string }
interface Mail { id: string, kind: string, to: string, subject: string, status: 'pending' | 'sent' | 'failed', attempts: number, lastError: string | null, nextAttemptAt: number | null, createdAt: number }

/**
 * Mail: the settings the server was started with (SMTP_URL without its password,
 * MAIL_FROM), a button that sends the signed-in administrator a test mail, and the
 * outbox's last mails with their state, as the webhooks page shows deliveries.
 */
export function mailPage (t: T, locale: string) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const body = h('div', {})
    const say = (answer: ApiAnswer): string => errorText(t, answer)

    const load = async (): Promise<void> => {
      const answer = await api('GET', '/panel/api/mail')
      if (!answer.ok) {
        result.error(say(answer))
        return
      }
      const settings = answer.body!.settings as Settings
      const mails = answer.body!.mails as Mail[]
      const test = h('button', { type: 'button' }, t('ui.mail.sendTest')) as HTMLButtonElement
      test.disabled = !settings.available
      test.addEventListener('click', () => void buttonAction(test, () => api('POST', '/panel/api/mail/test'), () => {
        result.ok(t('ui.mail.testQueued'))
        setTimeout(() => void load(), 1500)
      }, result, say))
      const refresh = h('button', { type: 'button', class: 'secondary' }, t('ui.mail.refresh')) as HTMLButtonElement
      refresh.addEventListener('click', () => void load())
      const label = (key: string): Record<string, string> => ({ 'data-label': t(`ui.mail.column.${key}`) })
      body.replaceChildren(
        h('div', { class: 'card' }, h('h2', {}, t('ui.mail.settings')),
          h('dl', { class: 'facts' },
            h('dt', {}, t('ui.mail.transport')), h('dd', {}, t(`ui.mail.transport.${settings.transport}`)),
            h('dt', {}, t('ui.mail.server')), h('dd', {}, settings.server ?? '—'),
            h('dt', {}, t('ui.mail.from')), h('dd', {}, settings.from)),
          h('div', { class: 'row' }, test, refresh)),
        h('div', { class: 'card' }, h('div', { class: 'table-scroll' }, h('table', { class: 'deliveries' },
          h('caption', {}, t('ui.mail.outbox')),
          h('thead', {}, h('tr', {}, ...['kind', 'to', 'status', 'attempts', 'error', 'when'].map(key => h('th', { scope: 'col' }, t(`ui.mail.column.${key}`))))),
          h('tbody', {}, ...mails.length === 0
            ? [h('tr', {}, h('td', { colspan: 6, class: 'hint' }, t('ui.mail.none')))]
            : mails.map(mail => h('tr', {},
              h('td', label('kind'), mail.kind),
              h('td', label('to'), mail.to),
              h('td', label('status'), h('span', { class: mail.status === 'failed' ? 'tag warn' : 'tag' }, t(`ui.mail.status.${mail.status}`))),
              h('td', label('attempts'), String(mail.attempts)),
              h('td', label('error'), mail.lastError ?? '—'),
              h('td', label('when'), mail.nextAttemptAt === null
                ? relativeTime(mail.createdAt, locale)
                : t('ui.webhooks.nextTry', { when: relativeTime(mail.nextAttemptAt, locale) })))))))))
    }
    root.replaceChildren(h('h1', {}, t('ui.mail.title')), h('p', { class: 'hint' }, t('ui.mail.intro')), result, body)
    void load()
  }
}
