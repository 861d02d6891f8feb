import { h, outcome } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, hostStrings } from '../panel/strings.js'

/**
 * The `/unsubscribe` page: the link in a mention mail's text (`#user=…&token=…`, a
 * fragment, so it reaches no log) stops mention mails with one button, no session
 * needed; mail clients do the same with one POST (`List-Unsubscribe-Post`).
 */
const locale = (document.documentElement.lang || navigator.language).toLowerCase().startsWith('tr') ? 'tr' : 'en'
const t = hostStrings(locale)
const root = document.querySelector<HTMLElement>('[data-unsubscribe]')

if (root !== null) {
  const link = new URLSearchParams(location.hash.slice(1))
  const user = link.get('user')
  const token = link.get('token')
  if (user === null || token === null) {
    root.replaceChildren(h('h1', {}, t('site.unsubscribeTitle')), h('p', {}, t('site.unsubscribeMissing')))
  } else {
    history.replaceState(null, '', location.pathname)
    const result = outcome()
    const confirm = h('button', { type: 'button' }, t('site.unsubscribeConfirm')) as HTMLButtonElement
    confirm.addEventListener('click', () => {
      confirm.disabled = true
      const query = new URLSearchParams({ user, token })
      void api('POST', `/api/mail/unsubscribe?${query.toString()}`, {}).then(answer => {
        if (answer.ok) {
          result.ok(t('site.unsubscribeDone'))
          confirm.remove()
        } else {
          confirm.disabled = false
          result.error(errorText(t, answer))
        }
      })
    })
    root.replaceChildren(h('h1', {}, t('site.unsubscribeTitle')), result, h('div', { class: 'account-row' }, confirm))
    confirm.focus()
  }
}
