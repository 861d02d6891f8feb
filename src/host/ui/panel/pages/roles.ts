import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

interface Permission { node: string, title: string, description: string }
interface Role { id: number, name: string, permissions: string[], builtin: boolean }

/** Roles: create one, tick its permissions by their titles; change the ones that exist. */
export function rolesPage (t: T, locale: string) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const list = h('div', {})
    let catalogue: Permission[] = []

    const checkboxes = (chosen: readonly string[], prefix: string, without: readonly string[] = []): HTMLElement => h('fieldset', {},
      h('legend', {}, t('ui.roles.permissions')),
      ...catalogue.filter(p => !without.includes(p.node)).map(p => {
        const id = `${prefix}-${p.node.replaceAll('.', '-')}`
        return h('div', { class: 'check' },
          h('input', { type: 'checkbox', id, name: 'permission', value: p.node, checked: chosen.includes(p.node) }),
          h('label', { for: id }, h('span', {}, p.title), h('br'), h('span', { class: 'hint' }, p.description)))
      }))
    const ticked = (form: HTMLElement): string[] =>
      [...form.querySelectorAll<HTMLInputElement>('input[name=permission]:checked')].map(input => input.value)

    const roleCard = (role: Role): HTMLElement => {
      if (role.builtin && role.permissions.includes('*')) {
        return h('div', { class: 'card' }, h('h2', {}, role.name), h('p', { class: 'hint' }, t('ui.roles.builtin')))
      }
      if (role.builtin) {
        // The member role: its permissions only, and none of the panel's (it never opens it).
        const form = h('form', { class: 'stack', 'aria-label': role.name },
          h('p', { class: 'hint' }, t('ui.roles.member')),
          checkboxes(role.permissions, `role${role.id}`, catalogue.map(p => p.node).filter(node => node.startsWith('panel.'))),
          h('div', {}, h('button', { type: 'submit' }, t('ui.roles.save')))) as HTMLFormElement
        onSubmit(form, result, answer => errorText(t, answer), () => api('PUT', `/panel/api/roles/${role.id}`, { name: role.name, permissions: ticked(form) }),
          () => result.ok(t('ui.roles.saved')))
        return h('div', { class: 'card' }, h('h2', {}, role.name), form)
      }
      const name = h('input', { type: 'text', required: true, maxlength: 64, value: role.name }) as HTMLInputElement
      const form = h('form', { class: 'stack', 'aria-label': role.name },
        field(t('ui.field.name'), name), checkboxes(role.permissions, `role${role.id}`),
        h('div', {}, h('button', { type: 'submit' }, t('ui.roles.save')))) as HTMLFormElement
      onSubmit(form, result, answer => errorText(t, answer), () => api('PUT', `/panel/api/roles/${role.id}`, { name: name.value, permissions: ticked(form) }),
        () => result.ok(t('ui.roles.saved')))
      return h('div', { class: 'card' }, h('h2', {}, role.name), form)
    }

    const load = async (): Promise<void> => {
      const [permissions, roles] = await Promise.all([
        api('GET', `/panel/api/permissions?locale=${encodeURIComponent(locale)}`), api('GET', '/panel/api/roles')])
      if (!permissions.ok || !roles.ok) {
        result.error(errorText(t, permissions.ok ? roles : permissions))
        return
      }
      catalogue = permissions.body!.permissions as Permission[]
      const name = h('input', { type: 'text', required: true, maxlength: 64 }) as HTMLInputElement
      const create = h('form', { class: 'stack', 'aria-label': t('ui.roles.create') },
        field(t('ui.field.name'), name), checkboxes([], 'new'),
        h('div', {}, h('button', { type: 'submit' }, t('ui.roles.create')))) as HTMLFormElement
      onSubmit(create, result, answer => errorText(t, answer), () => api('POST', '/panel/api/roles', { name: name.value, permissions: ticked(create) }), async () => {
        await load()
        result.ok(t('ui.roles.created'))
      })
      list.replaceChildren(
        h('div', { class: 'card' }, h('h2', {}, t('ui.roles.create')), create),
        ...(roles.body!.roles as Role[]).map(roleCard))
    }
    root.replaceChildren(h('h1', {}, t('ui.roles.title')), result, list)
    void load()
  }
}
