import { field, h, onSubmit, outcome, type ApiAnswer } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

/** "My password": any signed-in user changes their own; their other sessions end. */
export function passwordPage (t: T) {
  return (root: HTMLElement): void => {
    const current = h('input', { type: 'password', required: true, maxlength: 128, autocomplete: 'current-password' }) as HTMLInputElement
    const next = h('input', { type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
    const again = h('input', { type: 'password', required: true, autocomplete: 'new-password' }) as HTMLInputElement
    const result = outcome()
    const form = h('form', { class: 'stack', 'aria-label': t('ui.password.title') },
      field(t('ui.password.current'), current),
      field(t('ui.password.new'), next, t('ui.password.hint')),
      field(t('ui.password.again'), again),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.password.submit')))) as HTMLFormElement
    // Here a wrong password can only be the current one.
    const say = (answer: ApiAnswer): string => answer.body?.error === 'INVALID_CREDENTIALS' ? t('ui.password.wrongCurrent') : errorText(t, answer)
    onSubmit(form, result, say, () => {
      if (next.value === again.value) return api('POST', '/api/auth/password', { currentPassword: current.value, newPassword: next.value })
      result.error(t('ui.passwordsDiffer'))
      return undefined
    }, () => {
      form.reset()
      result.ok(t('ui.password.changed'))
    })
    root.replaceChildren(h('h1', {}, t('ui.password.title')), h('div', { class: 'card narrow-left' }, form))
  }
}
