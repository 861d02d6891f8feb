import { field, h, onSubmit, outcome, type ApiAnswer, type PanelHost } from '../../../sdk/ui.js'
import type { shoutboxStrings } from '../../ui/strings.js'

interface Hook { id: number, room: string, name: string }

/**
 * The panel's Incoming hooks page, beside Webhooks: add a hook for a room (its URL shown
 * once, right there), see the hooks of the rooms one may read, remove one.
 */
export function incomingHooksPage (panel: PanelHost, t: ReturnType<typeof shoutboxStrings>, say: (answer: ApiAnswer) => string) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const listResult = outcome()
    const room = h('select', { id: 'incoming-room', required: true }) as HTMLSelectElement
    const name = h('input', { type: 'text', id: 'incoming-name', required: true, maxlength: 64, autocomplete: 'off' }) as HTMLInputElement
    const shown = h('div', {})
    const form = h('form', { class: 'stack', 'aria-label': t('ui.incoming.create') },
      field(t('ui.incoming.room'), room),
      field(t('ui.incoming.name'), name, t('ui.incoming.nameHint')),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.incoming.create')))) as HTMLFormElement
    onSubmit(form, result, say, () => panel.api('POST', '/panel/api/shoutbox/incoming', { room: room.value, name: name.value }), async created => {
      await load()
      result.ok(t('ui.incoming.created'))
      name.value = ''
      // The URL once: only its hash is kept.
      shown.replaceChildren(h('div', { class: 'card secret', role: 'status' },
        h('p', {}, h('strong', {}, t('ui.incoming.url'))),
        h('p', {}, h('code', { class: 'secret-value' }, String(created.body!.url))),
        h('p', { class: 'hint' }, t('ui.incoming.urlHint'))))
    })
    const list = h('ul', { class: 'items' })
    const load = async (): Promise<void> => {
      const [hooks, rooms] = await Promise.all([panel.api('GET', '/panel/api/shoutbox/incoming'), panel.api('GET', '/api/shoutbox/rooms')])
      if (!hooks.ok) {
        listResult.error(say(hooks))
        return
      }
      if (rooms.ok && room.options.length === 0) {
        room.replaceChildren(...(rooms.body!.rooms as Array<{ slug: string, name: string }>).map(each => h('option', { value: each.slug }, `${each.name} (${each.slug})`)))
      }
      const all = hooks.body!.hooks as Hook[]
      list.replaceChildren(...all.length === 0 ? [h('li', { class: 'hint' }, t('ui.incoming.none'))] : all.map(item))
    }
    const item = (hook: Hook): HTMLElement => {
      const remove = h('button', { type: 'button', class: 'secondary danger-text', 'aria-label': t('ui.incoming.deleteLabel', { name: hook.name }) }, t('ui.incoming.delete')) as HTMLButtonElement
      remove.addEventListener('click', () => {
        void panel.api('DELETE', `/panel/api/shoutbox/incoming/${hook.id}`).then(async answer => {
          if (!answer.ok && answer.status !== 404) listResult.error(say(answer))
          await load()
        })
      })
      return h('li', {}, h('div', { class: 'row' }, h('strong', {}, hook.name), h('span', { class: 'meta' }, t('ui.incoming.inRoom', { room: hook.room })), remove))
    }
    root.replaceChildren(
      h('h1', {}, t('ui.incoming.title')),
      h('p', { class: 'hint' }, t('ui.incoming.intro'), ' ', h('a', { href: '#/webhooks' }, t('ui.incoming.webhooksLink'))),
      shown,
      h('div', { class: 'card' }, h('h2', {}, t('ui.incoming.create')), form),
      h('div', { class: 'card' }, h('h2', {}, t('ui.incoming.all')), listResult, list))
    void load()
  }
}
