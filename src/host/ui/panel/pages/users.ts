import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

interface User { id: number, username: string, email: string, roleId: number }
interface Role { id: number, name: string }

export function usersPage (t: T) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const body = h('div', {})
    const load = async (): Promise<void> => {
      const [users, roles] = await Promise.all([api('GET', '/panel/api/users'), api('GET', '/panel/api/roles')])
      if (!users.ok) {
        result.error(errorText(t, users))
        return
      }
      // Without panel.manage.roles the role list is refused; users can still be listed.
      const roleList = roles.ok ? roles.body!.roles as Role[] : []
      const roleName = (id: number): string => roleList.find(r => r.id === id)?.name ?? `#${id}`
      const username = h('input', { type: 'text', required: true, minlength: 3, maxlength: 32, pattern: '[A-Za-z0-9_\\-]+', autocomplete: 'off' }) as HTMLInputElement
      const email = h('input', { type: 'email', required: true, autocomplete: 'off' }) as HTMLInputElement
      const password = h('input', { type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
      const role = h('select', { required: true }, ...roleList.map(r => h('option', { value: r.id }, r.name))) as HTMLSelectElement
      const form = h('form', { class: 'stack', 'aria-label': t('ui.users.create') },
        field(t('ui.field.username'), username), field(t('ui.field.email'), email),
        field(t('ui.field.password'), password), field(t('ui.field.role'), role),
        h('div', {}, h('button', { type: 'submit' }, t('ui.users.create')))) as HTMLFormElement
      onSubmit(form, result, answer => errorText(t, answer), () => api('POST', '/panel/api/users', {
        username: username.value, email: email.value, password: password.value, roleId: Number(role.value)
      }), async () => {
        await load()
        result.ok(t('ui.users.created'))
      })
      body.replaceChildren(
        h('div', { class: 'card' }, h('h2', {}, t('ui.users.create')), form),
        h('div', { class: 'card' }, h('ul', { class: 'items' }, ...(users.body!.users as User[]).map(u =>
          h('li', {}, h('strong', {}, u.username), h('span', { class: 'meta' }, `${u.email} · ${roleName(u.roleId)}`))))))
    }
    root.replaceChildren(h('h1', {}, t('ui.users.title')), result, body)
    void load()
  }
}
