import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

export function loginPage (t: T, done: () => void): HTMLElement {
  const username = h('input', { type: 'text', name: 'username', required: true, autocomplete: 'username' }) as HTMLInputElement
  const password = h('input', { type: 'password', name: 'password', required: true, autocomplete: 'current-password' }) as HTMLInputElement
  const result = outcome()
  const form = h('form', { class: 'stack' },
    field(t('ui.login.username'), username),
    field(t('ui.field.password'), password),
    result,
    h('div', {}, h('button', { type: 'submit' }, t('ui.login.submit')))) as HTMLFormElement
  onSubmit(form, result, answer => errorText(t, answer), () => api('POST', '/api/auth/login', { username: username.value, password: password.value }), done)
  return h('main', {}, h('div', { class: 'card narrow' }, h('h1', {}, t('ui.login.title')), form))
}
