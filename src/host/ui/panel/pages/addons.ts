import { h, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

interface Addon { id: string, name: string, version: string, description: string, enabled: boolean, active: boolean }

export function addonsPage (t: T) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const list = h('ul', { class: 'items' })
    const load = async (): Promise<void> => {
      const answer = await api('GET', '/panel/api/addons')
      if (!answer.ok) {
        result.error(errorText(t, answer))
        return
      }
      list.replaceChildren(...(answer.body!.addons as Addon[]).map(addon => {
        const id = `addon-${addon.id}`
        const toggle = h('input', { type: 'checkbox', id, checked: addon.enabled }) as HTMLInputElement
        toggle.addEventListener('change', () => {
          toggle.disabled = true
          void api('PUT', `/panel/api/addons/${encodeURIComponent(addon.id)}`, { enabled: toggle.checked }).then(saved => {
            toggle.disabled = false
            if (saved.ok) result.ok(t('ui.addons.saved'))
            else {
              toggle.checked = !toggle.checked
              result.error(errorText(t, saved))
            }
          })
        })
        return h('li', {},
          h('strong', {}, `${addon.name} ${addon.version}`),
          h('span', {}, addon.description),
          h('span', { class: 'meta' }, addon.active ? t('ui.addons.running') : t('ui.addons.notRunning')),
          h('div', { class: 'check' }, toggle, h('label', { for: id }, t('ui.addons.enabled'))))
      }))
    }
    root.replaceChildren(h('h1', {}, t('ui.addons.title')), h('p', { class: 'hint' }, t('ui.addons.restart')), result, h('div', { class: 'card' }, list))
    void load()
  }
}
