import { field, h, outcome, type ApiAnswer } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, hostStrings } from '../panel/strings.js'
import { apiTokens } from './tokens.js'
import { announce, applyKeptTheme, applyTheme, changeEmail, deleteAccount, preferencesForm, type Preferences } from './preferences.js'

/**
 * The home page's account area: sign in, sign up (when the site allows it), a member's
 * preferences and sign out, without leaving the page. The theme marks where it goes with `data-account`; the forms
 * open below the site's header, from its buttons or from the links `#sign-in` and
 * `#sign-up` (the shoutbox widget's prompt uses them). Whoever else on the page cares
 * (the widget) hears a `site:session` event on `document` after each change, and
 * `site:preferences` when the member's preferences are read or saved. The member's theme is
 * applied to every page that loads this script.
 */

interface User { readonly username: string }
type Form = 'sign-in' | 'sign-up' | 'preferences'

const locale = document.documentElement.lang || 'en'
const t = hostStrings(locale)
applyKeptTheme()
const area = document.querySelector<HTMLElement>('[data-account]')
if (area !== null) void start(area)

async function start (area: HTMLElement): Promise<void> {
  let user: User | null = null
  let signUpOpen = false
  let preferences: Preferences | undefined
  let opened: { form: Form, toggle: HTMLElement | undefined } | undefined

  // Said aloud when the state changes; the header shows it too.
  const live = h('p', { class: 'account-live', role: 'status', 'aria-live': 'polite' })
  const panel = h('section', { id: 'account-panel', class: 'account-panel', hidden: true, 'aria-labelledby': 'account-panel-title' })
  area.setAttribute('role', 'group')
  area.setAttribute('aria-label', t('site.account'))
  const header = area.closest('header') ?? area
  header.after(panel)
  area.after(live)

  const changed = (): void => { document.dispatchEvent(new CustomEvent('site:session')) }

  const toggle = (form: Form, label: string): HTMLButtonElement => h('button', {
    type: 'button', class: 'account-button', 'aria-controls': 'account-panel', 'aria-expanded': opened?.form === form ? 'true' : 'false',
    'data-form': form, onclick: (event: Event) => show(form, event.currentTarget as HTMLElement)
  }, label) as HTMLButtonElement

  const drawHeader = (): void => {
    if (user === null) {
      area.replaceChildren(toggle('sign-in', t('site.signIn')), signUpOpen ? toggle('sign-up', t('site.signUp')) : '')
    } else {
      area.replaceChildren(
        h('span', { class: 'account-who', tabindex: -1 }, t('site.signedInAs', { username: user.username })),
        toggle('preferences', t('site.preferences')),
        h('button', { type: 'button', class: 'account-button', onclick: () => void signOut() }, t('site.signOut')))
    }
  }

  const signedIn = (answer: ApiAnswer): void => {
    user = answer.body!.user as User
    hide(false)
    drawHeader()
    live.textContent = t('site.welcome', { username: user.username })
    area.querySelector<HTMLElement>('.account-who')?.focus()
    changed()
    void readPreferences()
  }

  /** The member's preferences: their theme applied, and told to the page. */
  const readPreferences = async (): Promise<void> => {
    const answer = await api('GET', '/api/users/me/preferences')
    if (!answer.ok || user === null) return
    preferences = answer.body!.preferences as Preferences
    applyTheme(preferences.theme)
    announce(preferences)
  }
  document.addEventListener('site:preferences', event => { preferences = (event as CustomEvent<Preferences>).detail })

  const signOut = async (): Promise<void> => {
    await api('POST', '/api/auth/logout')
    user = null
    preferences = undefined
    hide(false)
    applyTheme('system')
    drawHeader()
    live.textContent = t('site.signedOut')
    area.querySelector<HTMLElement>('button')?.focus()
    changed()
  }

  /** Opens `form` under the header; `from` gets the focus back when it closes. */
  const show = (form: Form, from?: HTMLElement): void => {
    if ((user === null) === (form === 'preferences')) return
    if (form === 'sign-up' && !signUpOpen) form = 'sign-in'
    opened = { form, toggle: from ?? area.querySelector<HTMLElement>(`[data-form="${form}"]`) ?? undefined }
    const result = outcome()
    const close = h('button', { type: 'button', class: 'secondary', onclick: () => hide(true) }, t('site.close'))
    let element: HTMLFormElement
    if (form === 'sign-in') {
      const login = h('input', { type: 'text', name: 'username', required: true, maxlength: 254, autocomplete: 'username' }) as HTMLInputElement
      const password = h('input', { type: 'password', name: 'password', required: true, maxlength: 128, autocomplete: 'current-password' }) as HTMLInputElement
      element = h('form', { class: 'account-form' },
        field(t('site.login'), login), field(t('site.password'), password), result,
        h('div', { class: 'account-row' }, h('button', { type: 'submit' }, t('site.signIn')), close),
        h('p', {}, h('a', { href: '/password-reset' }, t('site.forgotPassword')))) as HTMLFormElement
      submit(element, result, () => api('POST', '/api/auth/login', { username: login.value, password: password.value }))
    } else if (form === 'preferences') {
      element = preferencesForm(t, preferences ?? { sound: false, desktopNotifications: false, theme: 'system', emailMentions: 'off' }, close)
    } else {
      const username = h('input', { type: 'text', name: 'username', required: true, minlength: 3, maxlength: 32, pattern: '[A-Za-z0-9_\\-]+', autocomplete: 'username' }) as HTMLInputElement
      const email = h('input', { type: 'email', name: 'email', required: true, maxlength: 254, autocomplete: 'email' }) as HTMLInputElement
      const password = h('input', { type: 'password', name: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
      element = h('form', { class: 'account-form' },
        field(t('site.username'), username, t('site.usernameHint')), field(t('site.email'), email),
        field(t('site.password'), password, t('site.passwordHint')), result,
        h('div', { class: 'account-row' }, h('button', { type: 'submit' }, t('site.signUpSubmit')), close)) as HTMLFormElement
      submit(element, result, () => api('POST', '/api/auth/signup', { username: username.value, email: email.value, password: password.value }))
    }
    const title = { 'sign-in': t('site.signInTitle'), 'sign-up': t('site.signUpTitle'), preferences: t('site.preferencesTitle') }[form]
    panel.replaceChildren(h('h2', { id: 'account-panel-title' }, title), element, ...(form === 'preferences' ? [changeEmail(t), apiTokens(t, locale), deleteAccount(t)] : []))
    panel.hidden = false
    for (const button of area.querySelectorAll<HTMLElement>('[data-form]')) button.setAttribute('aria-expanded', String(button.dataset.form === form))
    element.querySelector<HTMLInputElement>('input')?.focus()
  }

  const submit = (form: HTMLFormElement, result: ReturnType<typeof outcome>, send: () => Promise<ApiAnswer>): void => {
    form.addEventListener('submit', event => {
      event.preventDefault()
      const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!
      button.disabled = true
      void send().then(answer => {
        button.disabled = false
        if (answer.ok) {
          signedIn(answer)
        } else {
          result.error(errorText(t, answer))
          if (answer.body?.error === 'SIGN_UP_CLOSED') {
            signUpOpen = false
            drawHeader()
          }
        }
      })
    })
  }

  /** Closes the forms; with `refocus`, the button that opened them gets the focus back. */
  const hide = (refocus: boolean): void => {
    if (opened === undefined) return
    const from = opened.toggle
    opened = undefined
    panel.hidden = true
    panel.replaceChildren()
    for (const button of area.querySelectorAll<HTMLElement>('[data-form]')) button.setAttribute('aria-expanded', 'false')
    if (location.hash === '#sign-in' || location.hash === '#sign-up') history.replaceState(null, '', location.pathname + location.search)
    if (refocus && from?.isConnected === true) from.focus()
  }

  panel.addEventListener('keydown', event => {
    if (event.key === 'Escape') hide(true)
  })
  const route = (): void => {
    if (location.hash === '#sign-in') show('sign-in')
    else if (location.hash === '#sign-up') show('sign-up')
  }
  window.addEventListener('hashchange', route)

  const [me, signUp] = await Promise.all([api('GET', '/api/auth/me'), api('GET', '/api/auth/signup')])
  // Before setup nobody can sign in or up: say so, rather than offer forms that would fail.
  if (me.body?.error === 'INSTALLATION_REQUIRED') {
    area.replaceChildren(h('span', { class: 'account-who' }, t('site.notSetUp')))
    return
  }
  user = me.ok ? me.body!.user as User : null
  // A theme kept from a session that has ended is not this visitor's.
  if (user === null) applyTheme('system')
  signUpOpen = signUp.ok && signUp.body!.signUp === true
  drawHeader()
  route()
  if (user !== null) await readPreferences()
}
