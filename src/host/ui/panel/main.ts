import { h, type OverviewSection, type PanelHost, type PanelModule, type PanelPage, type PanelUser, type SetupStep } from '../../../sdk/ui.js'
import { api } from './api.js'
import { activityPage } from './pages/activity.js'
import { addonsPage } from './pages/addons.js'
import { loginPage } from './pages/login.js'
import { overviewPage } from './pages/overview.js'
import { passwordPage } from './pages/password.js'
import { rolesPage } from './pages/roles.js'
import { settingsPage } from './pages/settings.js'
import { setupPage } from './pages/setup.js'
import { usersPage } from './pages/users.js'
import { webhooksPage } from './pages/webhooks.js'
import { mailPage } from './pages/mail.js'
import { LOCALES, chooseLocale, chosenLocale, errorText, hostStrings, type T } from './strings.js'
import { applyKeptTheme, applyTheme, type Preferences } from '../site/preferences.js'

interface Page extends PanelPage {
  /** `activity`, or `<addon>/<page>` for an addon's page. */
  readonly key: string
}

const app = document.getElementById('app')!
/** Set in this tab's session storage when setup finishes, until the addons' setup steps are answered. */
const SETUP_STEPS_PENDING = 'panel.setupStepsPending'
let leave: (() => void) | undefined
let onHashChange: (() => void) | undefined

/** Draws the panel for whoever is (or is not) signed in; run again after sign-in or a language change. */
applyKeptTheme()

async function start (): Promise<void> {
  const locale = chosenLocale()
  document.documentElement.lang = locale
  const t = hostStrings(locale)
  document.title = t('ui.panel')
  leave?.()
  leave = undefined
  if (onHashChange !== undefined) window.removeEventListener('hashchange', onHashChange)

  const status = await api('GET', '/api/setup/status')
  if (!status.ok) return fail(t, errorText(t, status))
  if (status.body!.setupDone !== true) {
    return show(t, locale, null, setupPage(t, () => {
      // The wizard goes on, signed in, with the addons' questions (even after a reload).
      sessionStorage.setItem(SETUP_STEPS_PENDING, '1')
      void start()
    }))
  }
  const me = await api('GET', '/api/auth/me')
  if (me.status === 401) return show(t, locale, null, loginPage(t, () => void start()))
  if (!me.ok) return fail(t, errorText(t, me))
  const user = me.body!.user as PanelUser
  // The member's theme, as on the site's pages (applied as it comes: the page is already up).
  void api('GET', '/api/users/me/preferences').then(answer => { if (answer.ok) applyTheme((answer.body!.preferences as Preferences).theme) })
  const can = (node: string): boolean => user.permissions.includes('*') || user.permissions.includes(node)
  if (!can('panel.access')) {
    // No panel, but their own password is theirs to change.
    const own = h('div', {})
    passwordPage(t)(own)
    return show(t, locale, user, h('main', {}, h('p', { class: 'card' }, t('ui.noAccess'), ' ', h('a', { href: '/' }, t('ui.home'))), own))
  }

  const sections: OverviewSection[] = []
  const steps: SetupStep[] = []
  const pages: Page[] = await addonPages(user, locale, can, t, sections, steps)
  const questions = steps.filter(step => can(step.permission))
  if (sessionStorage.getItem(SETUP_STEPS_PENDING) !== null && questions.length > 0) {
    return show(t, locale, user, setupSteps(t, questions, () => {
      sessionStorage.removeItem(SETUP_STEPS_PENDING)
      void start()
    }))
  }
  sessionStorage.removeItem(SETUP_STEPS_PENDING)
  pages.unshift({
    key: 'overview', id: 'overview', title: t('ui.overview.title'), permission: 'panel.access',
    render: overviewPage(t, locale, sections.filter(section => can(section.permission)))
  })
  pages.push(
    { key: 'activity', id: 'activity', title: t('ui.activity.title'), permission: 'panel.access', render: activityPage(t, locale) },
    { key: 'roles', id: 'roles', title: t('ui.roles.title'), permission: 'panel.manage.roles', render: rolesPage(t, locale) },
    { key: 'users', id: 'users', title: t('ui.users.title'), permission: 'panel.manage.users', render: usersPage(t, user) },
    { key: 'addons', id: 'addons', title: t('ui.addons.title'), permission: 'panel.manage.addons', render: addonsPage(t) },
    { key: 'settings', id: 'settings', title: t('ui.settings.title'), permission: 'panel.manage.settings', render: settingsPage(t) },
    { key: 'webhooks', id: 'webhooks', title: t('ui.webhooks.title'), permission: 'panel.manage.webhooks', render: webhooksPage(t, locale) },
    { key: 'mail', id: 'mail', title: t('ui.mail.title'), permission: 'panel.manage.settings', render: mailPage(t, locale) },
    { key: 'password', id: 'password', title: t('ui.password.title'), permission: 'panel.access', render: passwordPage(t) })
  // Only what this user may use is shown at all.
  const visible = pages.filter(page => can(page.permission))
  const main = h('main', {})
  const nav = h('nav', { class: 'menu', 'aria-label': t('ui.menu') })
  show(t, locale, user, nav, main)

  const route = (): void => {
    const key = location.hash.replace(/^#\/?/, '')
    const found = visible.find(p => p.key === key)
    // No address: the first page. An address that names no page (mistyped, or one this
    // user may not open) says so, rather than showing another page as if it were that one.
    if (found === undefined && key !== '') {
      nav.replaceChildren(...visible.map(p => h('a', { href: `#/${p.key}` }, p.title)))
      leave?.()
      leave = undefined
      main.replaceChildren(h('h1', {}, t('ui.notFound.title')), h('p', {}, t('ui.notFound.text', { page: key.slice(0, 60) }), ' ', h('a', { href: `#/${visible[0]!.key}` }, visible[0]!.title)))
      document.title = `${t('ui.notFound.title')} · ${t('ui.panel')}`
      return
    }
    const page = found ?? visible[0]!
    if (page.key !== key) history.replaceState(null, '', `#/${page.key}`)
    nav.replaceChildren(...visible.map(p => h('a', { href: `#/${p.key}`, 'aria-current': p === page ? 'page' : undefined }, p.title)))
    leave?.()
    main.replaceChildren()
    const done = page.render(main)
    leave = typeof done === 'function' ? done : undefined
    document.title = `${page.title} · ${t('ui.panel')}`
  }
  onHashChange = route
  window.addEventListener('hashchange', route)
  route()
}

/** Loads every running addon's panel module; each adds its pages through the PanelHost. */
async function addonPages (user: PanelUser, locale: string, can: (node: string) => boolean, t: T, sections: OverviewSection[], steps: SetupStep[]): Promise<Page[]> {
  const pages: Page[] = []
  const answer = await api('GET', '/panel/api/ui/addons')
  if (!answer.ok) return pages
  for (const addon of answer.body!.addons as Array<{ id: string, panel: string | null }>) {
    if (addon.panel === null) continue
    const host: PanelHost = {
      user,
      locale,
      can,
      api: (method, path, body) => api(method, path, body),
      errorText: (result, addonStrings) => errorText(t, result, addonStrings),
      addPage: page => { pages.push({ ...page, key: `${addon.id}/${page.id}` }) },
      addOverview: section => { sections.push(section) },
      addSetupStep: step => { steps.push(step) }
    }
    try {
      const module = await import(addon.panel) as { default: PanelModule }
      module.default(host)
    } catch (error) {
      console.warn(`the panel module of ${addon.id} failed to load`, error)
    }
  }
  return pages
}

/**
 * The setup wizard's next steps: the addons' questions, one card each, in turn ("Step 2 of
 * 3"); `finished` runs after the last one is answered.
 */
function setupSteps (t: T, steps: readonly SetupStep[], finished: () => void): HTMLElement {
  const main = h('main', {})
  const ask = (index: number): void => {
    const step = steps[index]
    if (step === undefined) return finished()
    const body = h('div', {})
    main.replaceChildren(h('div', { class: 'card narrow' },
      h('p', { class: 'hint' }, t('ui.setup.step', { number: index + 2, count: steps.length + 1 })),
      h('h1', {}, step.title), body))
    step.render(body, () => ask(index + 1))
    body.querySelector<HTMLElement>('input, select, textarea, button')?.focus()
  }
  ask(0)
  return main
}

function show (t: T, locale: string, user: PanelUser | null, ...content: HTMLElement[]): void {
  const language = h('select', { id: 'language' }, ...LOCALES.map(([code, name]) => h('option', { value: code, selected: code === locale }, name))) as HTMLSelectElement
  language.addEventListener('change', () => {
    chooseLocale(language.value)
  })
  const signOut = async (): Promise<void> => {
    await api('POST', '/api/auth/logout')
    void start()
  }
  app.replaceChildren(
    h('header', { class: 'top' },
      h('a', { class: 'brand', href: '#/' }, t('ui.panel')),
      h('a', { href: '/' }, t('ui.home')),
      h('label', { for: 'language' }, t('ui.language')), language,
      user === null ? null : h('span', { class: 'who' }, t('ui.signedInAs', { username: user.username }), ' ',
        h('button', { type: 'button', class: 'secondary', onclick: () => void signOut() }, t('ui.signOut')))),
    ...content)
}

function fail (t: T, text: string): void {
  show(t, chosenLocale(), null, h('main', {}, h('p', { class: 'message error' }, text)))
}

void start()
