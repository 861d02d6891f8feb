import { field, h, outcome } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, hostStrings } from '../panel/strings.js'

/**
 * The `/verify-email` page. With `#token=…` (the link mailed at sign-up; a fragment, so
 * it reaches no log): one button confirms the address, no session needed. Without it, or
 * when the link no longer works: a form asking for the link again (the answer is the
 * same whether the address is known).
 */
const locale = (document.documentElement.lang || navigator.language).toLowerCase().startsWith('tr') ? 'tr' : 'en'
const t = hostStrings(locale)
const root = document.querySelector<HTMLElement>('[data-verify-email]')

if (root !== null) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  if (token === null) {
    root.replaceChildren(h('h1', {}, t('site.verifyTitle')), h('p', {}, t('site.verifyMissing')), resendForm())
  } else {
    history.replaceState(null, '', location.pathname)
    const result = outcome()
    const confirm = h('button', { type: 'button' }, t('site.verifyConfirm')) as HTMLButtonElement
    confirm.addEventListener('click', () => {
      confirm.disabled = true
      void api('POST', '/api/auth/verify-email/finish', { token }).then(answer => {
        if (answer.ok) {
          result.ok(t('site.verifyDone'))
          confirm.remove()
          result.append(h('p', {}, h('a', { href: '/' }, t('site.home'))))
        } else {
          confirm.disabled = false
          result.error(errorText(t, answer))
          if (answer.body?.error === 'INVALID_VERIFICATION_TOKEN') root.append(resendForm())
        }
      })
    })
    root.replaceChildren(h('h1', {}, t('site.verifyTitle')), result, h('div', { class: 'account-row' }, confirm))
    confirm.focus()
  }
}

function resendForm (): HTMLFormElement {
  const result = outcome()
  const email = h('input', { type: 'email', name: 'email', required: true, maxlength: 254, autocomplete: 'email' }) as HTMLInputElement
  const send = h('button', { type: 'submit' }, t('site.verifyResend')) as HTMLButtonElement
  const form = h('form', { class: 'account-form' }, h('p', {}, t('site.verifyAsk')), field(t('site.email'), email), result, h('div', { class: 'account-row' }, send)) as HTMLFormElement
  form.addEventListener('submit', event => {
    event.preventDefault()
    send.disabled = true
    void api('POST', `/api/auth/verify-email/resend?locale=${locale}`, { email: email.value }).then(answer => {
      send.disabled = false
      if (answer.ok) result.ok(t('site.verifyResent'))
      else result.error(errorText(t, answer))
    })
  })
  return form
}
