import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

interface Role { id: number, name: string }

/** The site's settings: whether visitors may sign up, the role their accounts get, and how long the activity log keeps its entries. */
export function settingsPage (t: T) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const signUp = h('input', { type: 'checkbox', id: 'site-sign-up', 'aria-describedby': 'site-sign-up-hint' }) as HTMLInputElement
    const verifyEmail = h('input', { type: 'checkbox', id: 'site-verify-email', 'aria-describedby': 'site-verify-email-hint' }) as HTMLInputElement
    const role = h('select', { id: 'site-default-role' }) as HTMLSelectElement
    const erasure = h('select', { id: 'site-erasure' },
      h('option', { value: 'anonymise' }, t('ui.settings.erasureAnonymise')), h('option', { value: 'delete' }, t('ui.settings.erasureDelete'))) as HTMLSelectElement
    const keepDays = h('input', { type: 'number', id: 'site-activity-keep-days', min: 30, max: 3650, step: 1, placeholder: t('ui.settings.forever') }) as HTMLInputElement
    const form = h('form', { class: 'stack card' },
      h('div', { class: 'check' }, signUp,
        h('label', { for: 'site-sign-up' }, h('span', {}, t('ui.settings.signUp')), h('br'), h('span', { class: 'hint', id: 'site-sign-up-hint' }, t('ui.settings.signUpHint')))),
      h('div', { class: 'check' }, verifyEmail,
        h('label', { for: 'site-verify-email' }, h('span', {}, t('ui.settings.verifyEmail')), h('br'), h('span', { class: 'hint', id: 'site-verify-email-hint' }, t('ui.settings.verifyEmailHint')))),
      field(t('ui.settings.defaultRole'), role, t('ui.settings.defaultRoleHint')),
      field(t('ui.settings.activityKeepDays'), keepDays, t('ui.settings.activityKeepDaysHint')),
      field(t('ui.settings.erasure'), erasure, t('ui.settings.erasureHint')),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.settings.save')))) as HTMLFormElement
    onSubmit(form, result, answer => errorText(t, answer),
      () => api('PUT', '/panel/api/settings', { signUp: signUp.checked, defaultRoleId: Number(role.value), activityKeepDays: keepDays.value === '' ? null : Number(keepDays.value), erasure: erasure.value, verifyEmail: verifyEmail.checked }),
      () => result.ok(t('ui.settings.saved')))
    root.replaceChildren(h('h1', {}, t('ui.settings.title')), form)
    void api('GET', '/panel/api/settings').then(answer => {
      if (!answer.ok) {
        result.error(errorText(t, answer))
        return
      }
      const chosen = answer.body!.defaultRoleId as number
      role.replaceChildren(...(answer.body!.roles as Role[]).map(r => h('option', { value: r.id, selected: r.id === chosen }, r.name)))
      signUp.checked = answer.body!.signUp === true
      verifyEmail.checked = answer.body!.verifyEmail === true
      const days = answer.body!.activityKeepDays as number | null
      keepDays.value = days === null ? '' : String(days)
      erasure.value = answer.body!.erasure as string
    })
  }
}
