import { h, outcome } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, hostStrings } from '../panel/strings.js'

/**
 * The `/email-change` page: the link mailed to a new address (`#token=…`, a fragment, so
 * it reaches no log) confirms it with one button; no session needed.
 */
const locale = document.documentElement.lang || 'en'
const t = hostStrings(locale)
const root = document.querySelector<HTMLElement>('[data-email-change]')

if (root !== null) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  if (token === null) {
    root.replaceChildren(h('h1', {}, t('site.emailChangeTitle')), h('p', {}, t('site.emailChangeMissing')))
  } else {
    history.replaceState(null, '', location.pathname)
    const result = outcome()
    const confirm = h('button', { type: 'button' }, t('site.emailChangeConfirm')) as HTMLButtonElement
    confirm.addEventListener('click', () => {
      confirm.disabled = true
      void api('POST', '/api/auth/email-change/finish', { token }).then(answer => {
        if (answer.ok) {
          result.ok(t('site.emailChangeDone', { email: answer.body!.email as string }))
          confirm.remove()
        } else {
          confirm.disabled = false
          result.error(errorText(t, answer))
        }
      })
    })
    root.replaceChildren(h('h1', {}, t('site.emailChangeTitle')), result, h('div', { class: 'account-row' }, confirm))
    confirm.focus()
  }
}
