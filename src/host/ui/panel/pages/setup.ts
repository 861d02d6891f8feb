import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

/** The first-run wizard: creates the first administrator, who is signed in at once. */
export function setupPage (t: T, done: () => void): HTMLElement {
  const username = h('input', { type: 'text', name: 'username', required: true, minlength: 3, maxlength: 32, pattern: '[A-Za-z0-9_\\-]+', autocomplete: 'username' }) as HTMLInputElement
  const email = h('input', { type: 'email', name: 'email', required: true, autocomplete: 'email' }) as HTMLInputElement
  const password = h('input', { type: 'password', name: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
  const again = h('input', { type: 'password', name: 'passwordAgain', required: true, autocomplete: 'new-password' }) as HTMLInputElement
  const result = outcome()
  const form = h('form', { class: 'stack' },
    field(t('ui.field.username'), username),
    field(t('ui.field.email'), email),
    field(t('ui.field.password'), password),
    field(t('ui.field.passwordAgain'), again),
    result,
    h('div', {}, h('button', { type: 'submit' }, t('ui.setup.submit')))) as HTMLFormElement
  onSubmit(form, result, answer => errorText(t, answer), () => {
    if (password.value === again.value) return api('POST', '/api/setup/finish', { username: username.value, email: email.value, password: password.value })
    result.error(t('ui.passwordsDiffer'))
    return undefined
  }, done)
  return h('main', {}, h('div', { class: 'card narrow' }, h('h1', {}, t('ui.setup.title')), h('p', {}, t('ui.setup.intro')), form))
}
