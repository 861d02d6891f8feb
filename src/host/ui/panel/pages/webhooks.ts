import { field, h, onSubmit, outcome, relativeTime, type ApiAnswer, type Outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { buttonAction } from '../button-action.js'
import { errorText, type T } from '../strings.js'

interface Webhook { id: number, url: string, events: string[], active: boolean, format: 'shoutbox' | 'slack' | 'discord', room: string | null, createdAt: number }
interface Delivery { id: string, event: string, status: 'pending' | 'delivered' | 'failed', attempts: number, responseCode: number | null, nextAttemptAt: number | null, createdAt: number }

/**
 * Webhooks: add one (its signing secret shown once, right there); for each, switch it on
 * or off, send a ping, read its last deliveries and send one again, remove it.
 */
export function webhooksPage (t: T, locale: string) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const body = h('div', {})
    const say = (answer: ApiAnswer): string => errorText(t, answer)

    const load = async (): Promise<void> => {
      const answer = await api('GET', '/panel/api/webhooks')
      if (!answer.ok) {
        result.error(say(answer))
        return
      }
      const events = answer.body!.events as string[]
      const url = h('input', { type: 'url', required: true, maxlength: 2000, placeholder: 'https://chat.example.org/hooks/shoutbox', autocomplete: 'off' }) as HTMLInputElement
      const boxes = events.map(event => h('input', { type: 'checkbox', value: event, id: `hook-event-${event}`, checked: event.startsWith('shout.') }) as HTMLInputElement)
      const secret = h('div', { class: 'secret', hidden: true })
      const format = h('select', { id: 'hook-format' }, ...(['shoutbox', 'slack', 'discord'] as const).map(value => h('option', { value }, t(`ui.webhooks.format.${value}`)))) as HTMLSelectElement
      const room = h('input', { type: 'text', id: 'hook-room', maxlength: 32, pattern: '[a-z0-9][a-z0-9\\-]{0,31}', autocomplete: 'off', placeholder: 'general' }) as HTMLInputElement
      // A chat channel takes new shouts only.
      format.addEventListener('change', () => {
        if (format.value === 'shoutbox') return
        for (const box of boxes) box.checked = box.value === 'shout.created'
      })
      const form = h('form', { class: 'stack', 'aria-label': t('ui.webhooks.create') },
        // The hint says what this server takes (WEBHOOKS_ALLOW_HTTP).
        field(t('ui.webhooks.url'), url, t(answer.body!.allowHttp === true ? 'ui.webhooks.urlHintHttp' : 'ui.webhooks.urlHint')),
        field(t('ui.webhooks.format'), format, t('ui.webhooks.formatHint')),
        field(t('ui.webhooks.room'), room, t('ui.webhooks.roomHint')),
        h('fieldset', {}, h('legend', {}, t('ui.webhooks.events')),
          ...boxes.map(box => h('div', { class: 'check' }, box, h('label', { for: box.id }, box.value)))),
        h('div', {}, h('button', { type: 'submit' }, t('ui.webhooks.create')))) as HTMLFormElement
      onSubmit(form, result, say, () => api('POST', '/panel/api/webhooks', { url: url.value, events: boxes.filter(box => box.checked).map(box => box.value), format: format.value, ...(room.value === '' ? {} : { room: room.value }) }), async created => {
        await load()
        result.ok(t('ui.webhooks.created'))
        showSecret(created.body!.secret as string)
      })
      const list = h('ul', { class: 'items' }, ...(answer.body!.webhooks as Webhook[]).map(hook => hookItem(t, locale, hook, say, () => void load())))
      body.replaceChildren(
        secret,
        h('div', { class: 'card' }, h('h2', {}, t('ui.webhooks.create')), form),
        h('div', { class: 'card' }, h('h2', {}, t('ui.webhooks.all')),
          (answer.body!.webhooks as Webhook[]).length === 0 ? h('p', { class: 'hint' }, t('ui.webhooks.none')) : list))
    }
    /** The new hook's secret, once: the receiver needs it to check signatures. */
    const showSecret = (value: string): void => {
      const code = h('code', { class: 'secret-value' }, value)
      const box = h('div', { class: 'card secret', role: 'status' }, h('p', {}, h('strong', {}, t('ui.webhooks.secret'))), h('p', {}, code), h('p', { class: 'hint' }, t('ui.webhooks.secretHint')))
      body.prepend(box)
    }
    root.replaceChildren(h('h1', {}, t('ui.webhooks.title')), h('p', { class: 'hint' }, t('ui.webhooks.intro'), ' ', h('a', { href: '#/shoutbox/incoming' }, t('ui.webhooks.incomingLink'))), result, body)
    void load()
  }
}

function hookItem (t: T, locale: string, hook: Webhook, say: (answer: ApiAnswer) => string, reload: () => void): HTMLElement {
  const said: Outcome = outcome()
  const state = h('span', { class: 'tag' })
  const toggle = h('button', { type: 'button', class: 'secondary' }) as HTMLButtonElement
  const show = (): void => {
    state.textContent = t(hook.active ? 'ui.webhooks.active' : 'ui.webhooks.paused')
    state.className = hook.active ? 'tag' : 'tag warn'
    toggle.textContent = t(hook.active ? 'ui.webhooks.pause' : 'ui.webhooks.resume')
  }
  toggle.addEventListener('click', () => void act(toggle, () => api('PUT', `/panel/api/webhooks/${hook.id}`, { active: !hook.active }), () => {
    hook.active = !hook.active
    show()
    said.ok(t(hook.active ? 'ui.webhooks.resumed' : 'ui.webhooks.pausedDone'))
  }))
  const ping = h('button', { type: 'button', class: 'secondary' }, t('ui.webhooks.ping')) as HTMLButtonElement
  ping.addEventListener('click', () => void act(ping, () => api('POST', `/panel/api/webhooks/${hook.id}/ping`), () => {
    said.ok(t('ui.webhooks.pinged'))
    setTimeout(() => void deliveries(), 1500)
  }))
  const remove = h('button', { type: 'button', class: 'secondary danger-text' }, t('ui.webhooks.delete')) as HTMLButtonElement
  remove.addEventListener('click', () => void act(remove, () => api('DELETE', `/panel/api/webhooks/${hook.id}`), reload))

  const table = h('tbody', {})
  const log = h('table', { class: 'deliveries' },
    h('caption', {}, t('ui.webhooks.deliveries')),
    h('thead', {}, h('tr', {}, ...['event', 'status', 'attempts', 'response', 'when', ''].map(key => h('th', { scope: 'col' }, key === '' ? '' : t(`ui.webhooks.column.${key}`))))),
    table)
  const deliveries = async (): Promise<void> => {
    const answer = await api('GET', `/panel/api/webhooks/${hook.id}/deliveries`)
    if (!answer.ok) {
      said.error(say(answer))
      return
    }
    const rows = answer.body!.deliveries as Delivery[]
    table.replaceChildren(...rows.length === 0
      ? [h('tr', {}, h('td', { colspan: 6, class: 'hint' }, t('ui.webhooks.noDeliveries')))]
      : rows.map(delivery => {
        const again = h('button', { type: 'button', class: 'secondary small' }, t('ui.webhooks.redeliver')) as HTMLButtonElement
        again.addEventListener('click', () => void act(again, () => api('POST', `/panel/api/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`), () => {
          said.ok(t('ui.webhooks.queued'))
          setTimeout(() => void deliveries(), 1500)
        }))
        // Labelled: on a phone each row is a card of labelled lines.
        const label = (key: string): Record<string, string> => ({ 'data-label': t(`ui.webhooks.column.${key}`) })
        return h('tr', {},
          h('td', label('event'), delivery.event),
          h('td', label('status'), h('span', { class: delivery.status === 'failed' ? 'tag warn' : 'tag' }, t(`ui.webhooks.status.${delivery.status}`))),
          h('td', label('attempts'), String(delivery.attempts)),
          h('td', label('response'), delivery.responseCode === null ? '—' : String(delivery.responseCode)),
          h('td', label('when'), delivery.nextAttemptAt === null
            ? relativeTime(delivery.createdAt, locale)
            : t('ui.webhooks.nextTry', { when: relativeTime(delivery.nextAttemptAt, locale) })),
          h('td', {}, again))
      }))
  }
  const refresh = h('button', { type: 'button', class: 'secondary' }, t('ui.webhooks.refresh')) as HTMLButtonElement
  refresh.addEventListener('click', () => void deliveries())

  async function act (button: HTMLButtonElement, send: () => Promise<ApiAnswer>, done: () => void): Promise<void> {
    await buttonAction(button, send, done, said, say)
  }

  show()
  void deliveries()
  return h('li', {},
    h('div', { class: 'row' }, h('strong', { class: 'hook-url' }, hook.url), state),
    h('span', { class: 'meta' }, [hook.format === 'shoutbox' ? null : t(`ui.webhooks.format.${hook.format}`), hook.room === null ? null : t('ui.webhooks.onlyRoom', { room: hook.room }), hook.events.join(', ')].filter(part => part !== null).join(' · ')),
    h('div', { class: 'row' }, toggle, ping, refresh, remove),
    said,
    h('div', { class: 'table-scroll' }, log))
}
