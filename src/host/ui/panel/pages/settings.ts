import { field, h, onSubmit, outcome } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, LOCALES, type T } from '../strings.js'

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
    root.replaceChildren(h('h1', {}, t('ui.settings.title')), form, faceForm(t))
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

/** The site's face: its name, the home page's welcome, the accent colour and the default language (live on every page once saved). */
function faceForm (t: T): HTMLElement {
  const result = outcome()
  const text = (id: string, maxLength: number) => h('input', { type: 'text', id, maxlength: maxLength, placeholder: t('ui.face.emptyHint') }) as HTMLInputElement
  const siteName = text('face-site-name', 80)
  const welcomeTitle = text('face-welcome-title', 120)
  const welcomeText = h('textarea', { id: 'face-welcome-text', rows: 4, maxlength: 2000, placeholder: t('ui.face.emptyHint') }) as HTMLTextAreaElement
  const accent = h('input', { type: 'text', id: 'face-accent', maxlength: 64, placeholder: '#2554c7', spellcheck: 'false', autocomplete: 'off' }) as HTMLInputElement
  const defaultLocale = h('select', { id: 'face-default-locale' }, ...LOCALES.map(([code, name]) => h('option', { value: code, lang: code }, name))) as HTMLSelectElement
  const orNull = (value: string): string | null => value.trim() === '' ? null : value
  // The logo: a picture sent as it is chosen (decoded and written again by the server), shown here once set.
  const logoPreview = h('img', { class: 'face-logo', alt: t('ui.face.logoNow'), hidden: true }) as HTMLImageElement
  const logoFile = h('input', { type: 'file', id: 'face-logo', accept: 'image/png,image/jpeg,image/webp,image/gif,image/avif' }) as HTMLInputElement
  const logoRemove = h('button', { type: 'button', class: 'secondary', hidden: true }, t('ui.face.logoRemove')) as HTMLButtonElement
  const showLogo = (url: string | null): void => {
    logoPreview.hidden = url === null
    logoRemove.hidden = url === null
    if (url !== null) logoPreview.src = url
  }
  logoFile.addEventListener('change', () => {
    const file = logoFile.files?.[0]
    if (file === undefined) return
    const body = new FormData()
    body.append('file', file)
    void fetch('/panel/api/uploads/logo', { method: 'POST', credentials: 'same-origin', body }).then(async response => {
      const answer = { ok: response.ok, status: response.status, body: await response.json().catch(() => ({})) as Record<string, unknown> }
      logoFile.value = ''
      if (!answer.ok) return result.error(errorText(t, answer))
      showLogo((answer.body.upload as { url: string }).url)
      result.ok(t('ui.face.logoSaved'))
    })
  })
  logoRemove.addEventListener('click', () => {
    void api('PUT', '/panel/api/site-face', { logo: null }).then(answer => {
      if (!answer.ok) return result.error(errorText(t, answer))
      showLogo(null)
      result.ok(t('ui.face.logoRemoved'))
    })
  })
  const form = h('form', { class: 'stack card', 'aria-labelledby': 'face-title' },
    h('h2', { id: 'face-title' }, t('ui.face.title')),
    h('p', { class: 'hint' }, t('ui.face.intro')),
    field(t('ui.face.siteName'), siteName),
    field(t('ui.face.welcomeTitle'), welcomeTitle),
    field(t('ui.face.welcomeText'), welcomeText),
    field(t('ui.face.accent'), accent, t('ui.face.accentHint')),
    field(t('ui.face.defaultLocale'), defaultLocale),
    field(t('ui.face.logo'), logoFile, t('ui.face.logoHint')),
    h('div', { class: 'face-logo-now' }, logoPreview, logoRemove),
    result,
    h('div', {}, h('button', { type: 'submit' }, t('ui.face.save')))) as HTMLFormElement
  onSubmit(form, result, answer => errorText(t, answer),
    () => api('PUT', '/panel/api/site-face', {
      siteName: orNull(siteName.value), welcomeTitle: orNull(welcomeTitle.value), welcomeText: orNull(welcomeText.value), accent: orNull(accent.value), defaultLocale: defaultLocale.value
    }),
    () => result.ok(t('ui.face.saved')))
  void api('GET', '/panel/api/site-face').then(answer => {
    if (!answer.ok) return
    const face = answer.body!.face as Record<string, string | null>
    siteName.value = face.siteName ?? ''
    welcomeTitle.value = face.welcomeTitle ?? ''
    welcomeText.value = face.welcomeText ?? ''
    accent.value = face.accent ?? ''
    defaultLocale.value = face.defaultLocale ?? 'en'
    showLogo(face.logo ?? null)
  })
  return form
}
