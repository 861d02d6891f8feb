import { field, h, outcome } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, hostStrings } from '../panel/strings.js'

/**
 * The `/password-reset` page. Without a token: a form asking for the account's e-mail
 * address (the answer is the same whether it is known). With `#token=…` (the mailed link;
 * a fragment, so the token is never sent in a request line, a log or a Referer): a form
 * for the new password, which signs in on success.
 */
const locale = document.documentElement.lang || 'en'
const t = hostStrings(locale)
const root = document.querySelector<HTMLElement>('[data-password-reset]')

if (root !== null) {
  draw(root)
  // A link followed from this very page changes only the fragment: no new page load.
  window.addEventListener('hashchange', () => draw(root))
}

function draw (root: HTMLElement): void {
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  const result = outcome()
  const button = (label: string): HTMLButtonElement => h('button', { type: 'submit' }, label) as HTMLButtonElement
  if (token === null) {
    const email = h('input', { type: 'email', name: 'email', required: true, maxlength: 254, autocomplete: 'email' }) as HTMLInputElement
    const send = button(t('site.resetSend'))
    const form = h('form', { class: 'account-form' }, field(t('site.email'), email), result, h('div', { class: 'account-row' }, send)) as HTMLFormElement
    form.addEventListener('submit', event => {
      event.preventDefault()
      send.disabled = true
      void api('POST', `/api/auth/password-reset?locale=${locale}`, { email: email.value }).then(answer => {
        send.disabled = false
        if (answer.ok) result.ok(t('site.resetSent'))
        else result.error(errorText(t, answer))
      })
    })
    root.replaceChildren(h('h1', {}, t('site.resetTitle')), h('p', {}, t('site.resetAsk')), form)
  } else {
    // The token leaves the address bar (and the history) at once.
    history.replaceState(null, '', location.pathname)
    const password = h('input', { type: 'password', name: 'new-password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
    const save = button(t('site.resetFinish'))
    const form = h('form', { class: 'account-form' }, field(t('site.resetNewPassword'), password, t('site.passwordHint')), result, h('div', { class: 'account-row' }, save)) as HTMLFormElement
    form.addEventListener('submit', event => {
      event.preventDefault()
      save.disabled = true
      void api('POST', '/api/auth/password-reset/finish', { token, password: password.value }).then(answer => {
        save.disabled = false
        if (answer.ok) {
          form.replaceWith(h('p', { class: 'message ok', role: 'status' }, t('site.resetDone')), h('p', {}, h('a', { href: '/' }, t('site.home'))))
          document.dispatchEvent(new CustomEvent('site:session'))
        } else {
          result.error(answer.body?.error === 'INVALID_RESET_TOKEN' ? t('site.resetBadLink') : errorText(t, answer))
          if (answer.body?.error === 'INVALID_RESET_TOKEN') result.append(h('p', {}, h('a', { href: '/password-reset' }, t('site.resetAgain'))))
        }
      })
    })
    root.replaceChildren(h('h1', {}, t('site.resetTitle')), form)
  }
  root.querySelector<HTMLInputElement>('input')?.focus()
}
