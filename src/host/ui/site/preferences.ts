import { field, h, outcome } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, LOCALES, type hostStrings } from '../panel/strings.js'

/** As `GET /api/users/me/preferences` answers them. */
export interface Preferences {
  readonly sound: boolean
  readonly desktopNotifications: boolean
  readonly theme: 'system' | 'light' | 'dark'
  /** The language pages are drawn in; null: the browser's. */
  readonly locale?: string | null
  readonly emailMentions: 'off' | 'batched' | 'daily'
}

/** The last theme chosen on this browser, applied before the answer comes so the page does not flash. */
const KEPT = 'site.theme'

/**
 * Puts the page in `theme`: light and dark set `data-theme` on the root, which the style
 * sheets' custom properties follow; "system" leaves it to `prefers-color-scheme`.
 */
export function applyTheme (theme: Preferences['theme']): void {
  if (theme === 'system') delete document.documentElement.dataset.theme
  else document.documentElement.dataset.theme = theme
  try {
    if (theme === 'system') localStorage.removeItem(KEPT)
    else localStorage.setItem(KEPT, theme)
  } catch {
    // Storage refused (a private window): the theme is applied, just not kept for the next page.
  }
}

/** The theme this browser last had, as the page starts. */
export function applyKeptTheme (): void {
  let kept: string | null = null
  try {
    kept = localStorage.getItem(KEPT)
  } catch {
    // Storage refused: the page starts in the system's theme until the preferences come.
  }
  if (kept === 'light' || kept === 'dark') document.documentElement.dataset.theme = kept
}

/** Tells whoever on the page cares (the shoutbox widget's bell) what the member chose now. */
export function announce (preferences: Preferences): void {
  document.dispatchEvent(new CustomEvent('site:preferences', { detail: preferences }))
}

/**
 * The preferences form: a sound and a desktop notification when something arrives, and the
 * theme. Turning desktop notifications on asks the browser's permission (a click is the
 * gesture it wants); refused, the form says how to allow them.
 */
export function preferencesForm (t: ReturnType<typeof hostStrings>, chosen: Preferences, close: HTMLElement): HTMLFormElement {
  let now = chosen
  const result = outcome()
  const box = (name: string, checked: boolean, label: string, hint: string): HTMLElement => {
    const input = h('input', { type: 'checkbox', name, id: `preference-${name}`, checked, 'aria-describedby': `preference-${name}-hint` })
    return h('div', { class: 'choice' }, input, h('label', { for: `preference-${name}` }, label), h('span', { class: 'hint', id: `preference-${name}-hint` }, hint))
  }
  const themes = (['system', 'light', 'dark'] as const).map(theme => h('label', { class: 'choice' },
    h('input', { type: 'radio', name: 'theme', value: theme, checked: now.theme === theme }), t(`site.theme.${theme}`)))
  const language = h('select', { name: 'locale' },
    h('option', { value: '', selected: now.locale === null || now.locale === undefined }, t('site.preferences.languageBrowser')),
    ...LOCALES.map(([code, name]) => h('option', { value: code, lang: code, selected: now.locale === code }, name))) as HTMLSelectElement
  const mentionMails = (['off', 'batched', 'daily'] as const).map(choice => h('label', { class: 'choice' },
    h('input', { type: 'radio', name: 'emailMentions', value: choice, checked: now.emailMentions === choice }), t(`site.preferences.emailMentions.${choice}`)))
  const form = h('form', { class: 'account-form' },
    h('fieldset', {}, h('legend', {}, t('site.preferences.notifications')),
      box('sound', now.sound, t('site.preferences.sound'), t('site.preferences.soundHint')),
      box('desktopNotifications', now.desktopNotifications, t('site.preferences.desktop'), t('site.preferences.desktopHint'))),
    h('fieldset', {}, h('legend', {}, t('site.preferences.emailMentions')), ...mentionMails),
    h('fieldset', {}, h('legend', {}, t('site.preferences.theme')), ...themes),
    field(t('site.preferences.language'), language),
    // Everything stored about the member, as one file (the browser saves it: Content-Disposition).
    h('p', { class: 'hint' }, h('a', { href: '/api/users/me/export', download: '' }, t('site.preferences.export')), ' ', t('site.preferences.exportHint')),
    result,
    h('div', { class: 'account-row' }, h('button', { type: 'submit' }, t('site.preferences.save')), close)) as HTMLFormElement
  form.addEventListener('submit', event => {
    event.preventDefault()
    const chosen: Preferences = {
      sound: (form.elements.namedItem('sound') as HTMLInputElement).checked,
      desktopNotifications: (form.elements.namedItem('desktopNotifications') as HTMLInputElement).checked,
      theme: (form.querySelector<HTMLInputElement>('input[name=theme]:checked')?.value ?? 'system') as Preferences['theme'],
      locale: language.value === '' ? null : language.value,
      emailMentions: (form.querySelector<HTMLInputElement>('input[name=emailMentions]:checked')?.value ?? 'off') as Preferences['emailMentions']
    }
    void save(chosen)
  })
  const save = async (chosen: Preferences): Promise<void> => {
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!
    button.disabled = true
    let permission = 'Notification' in window ? Notification.permission : 'denied'
    if (chosen.desktopNotifications && permission === 'default') permission = await Notification.requestPermission()
    // Only a changed mention-mail choice is sent: it needs mail and a confirmed address, the rest does not.
    const { emailMentions, ...rest } = chosen
    const answer = await api('PUT', `/api/users/me/preferences?locale=${document.documentElement.lang || 'en'}`, emailMentions === now.emailMentions ? rest : chosen)
    button.disabled = false
    if (!answer.ok) {
      result.error(errorText(t, answer))
      return
    }
    const saved = answer.body!.preferences as Preferences
    now = saved
    applyTheme(saved.theme)
    announce(saved)
    // Another language: the page is drawn again in it (the server carries its strings).
    if ((saved.locale ?? null) !== (now.locale ?? null) && (saved.locale ?? document.documentElement.lang) !== document.documentElement.lang) {
      location.reload()
      return
    }
    result.ok(saved.desktopNotifications && permission !== 'granted' ? t('site.preferences.savedBlocked') : t('site.preferences.saved'))
  }
  return form
}

/**
 * Changing the account's address, folded away under the preferences: the new address and
 * the password; a link goes to the new address (and a notice to the old), and the
 * address changes only when it is followed.
 */
export function changeEmail (t: ReturnType<typeof hostStrings>): HTMLElement {
  const result = outcome()
  const email = h('input', { type: 'email', name: 'email', required: true, maxlength: 254, autocomplete: 'email' }) as HTMLInputElement
  const password = h('input', { type: 'password', name: 'password', required: true, maxlength: 128, autocomplete: 'current-password' }) as HTMLInputElement
  const form = h('form', { class: 'account-form' },
    h('p', { class: 'hint' }, t('site.preferences.emailHint')),
    field(t('site.preferences.newEmail'), email), field(t('site.preferences.emailPassword'), password), result,
    h('div', { class: 'account-row' }, h('button', { type: 'submit' }, t('site.preferences.changeEmail')))) as HTMLFormElement
  form.addEventListener('submit', event => {
    event.preventDefault()
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!
    button.disabled = true
    void api('PUT', `/api/users/me/email?locale=${document.documentElement.lang || 'en'}`, { email: email.value, password: password.value }).then(answer => {
      button.disabled = false
      password.value = ''
      if (answer.ok) result.ok(t('site.preferences.emailSent'))
      else result.error(errorText(t, answer))
    })
  })
  return h('details', { class: 'account-email' }, h('summary', {}, t('site.preferences.email')), form)
}

/**
 * "Delete my account", folded away under the preferences: the password, then the account
 * goes (its shouts as the site's settings say) and the page reloads signed out.
 */
export function deleteAccount (t: ReturnType<typeof hostStrings>): HTMLElement {
  const result = outcome()
  const password = h('input', { type: 'password', name: 'password', required: true, maxlength: 128, autocomplete: 'current-password' }) as HTMLInputElement
  const form = h('form', { class: 'account-form' },
    h('p', { class: 'hint' }, t('site.deleteAccount.warning')),
    field(t('site.password'), password), result,
    h('div', { class: 'account-row' }, h('button', { type: 'submit', class: 'danger' }, t('site.deleteAccount.submit')))) as HTMLFormElement
  form.addEventListener('submit', event => {
    event.preventDefault()
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!
    button.disabled = true
    void api('DELETE', '/api/users/me', { password: password.value }).then(answer => {
      button.disabled = false
      if (!answer.ok) {
        result.error(errorText(t, answer))
        return
      }
      localStorage.removeItem(KEPT)
      location.assign('/')
    })
  })
  return h('details', { class: 'account-danger' }, h('summary', {}, t('site.deleteAccount.title')), form)
}
