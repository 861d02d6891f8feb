import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

/** `#/setup?token=…`: the link the host prints at a development start carries the token. */
function tokenFromLink (): string | undefined {
  const query = location.hash.split('?')[1]
  return new URLSearchParams(query ?? '').get('token') ?? undefined
}

/**
 * The first-run wizard: creates the first administrator, who is signed in at once. It
 * asks for the setup token (printed in the host's log), filled in when the link carried it.
 */
export function setupPage (t: T, done: () => void): HTMLElement {
  const linked = tokenFromLink()
  const token = h('input', { type: 'text', name: 'setupToken', required: true, autocomplete: 'off', spellcheck: 'false', value: linked }) as HTMLInputElement
  const username = h('input', { type: 'text', name: 'username', required: true, minlength: 3, maxlength: 32, pattern: '[A-Za-z0-9_\\-]+', autocomplete: 'username' }) as HTMLInputElement
  const email = h('input', { type: 'email', name: 'email', required: true, autocomplete: 'email' }) as HTMLInputElement
  const password = h('input', { type: 'password', name: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
  const again = h('input', { type: 'password', name: 'passwordAgain', required: true, autocomplete: 'new-password' }) as HTMLInputElement
  const result = outcome()
  const form = h('form', { class: 'stack' },
    field(t('ui.setup.token'), token, t('ui.setup.tokenHint')),
    field(t('ui.field.username'), username),
    field(t('ui.field.email'), email),
    field(t('ui.field.password'), password),
    field(t('ui.field.passwordAgain'), again),
    result,
    h('div', {}, h('button', { type: 'submit' }, t('ui.setup.submit')))) as HTMLFormElement
  onSubmit(form, result, answer => errorText(t, answer), () => {
    if (password.value !== again.value) {
      result.error(t('ui.passwordsDiffer'))
      return undefined
    }
    return api('POST', '/api/setup/finish', {
      username: username.value, email: email.value, password: password.value, setupToken: token.value.trim()
    })
  }, () => {
    // The token is spent: keep it out of the address bar and the history.
    if (linked !== undefined) history.replaceState(null, '', '/panel/')
    done()
  })
  return h('main', {}, h('div', { class: 'card narrow' }, h('h1', {}, t('ui.setup.title')), h('p', {}, t('ui.setup.intro')), form))
}
