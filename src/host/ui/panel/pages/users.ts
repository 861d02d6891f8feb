import { field, h, onSubmit, outcome, relativeTime, type ApiAnswer, type Outcome, type PanelUser } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { buttonAction } from '../button-action.js'
import { errorText, type T } from '../strings.js'

interface User { id: number, username: string, email: string, roleId: number, disabled: boolean, bot: boolean }
interface Token { id: number, name: string, permissions: string[], createdAt: number, expiresAt: number, lastUsedAt: number | null }
interface Role { id: number, name: string }
interface Permission { node: string, title: string, description: string }

/**
 * Users: create one (a person, or a bot account, which has no password); for each other
 * user change the role, disable or enable, set a password (a bot: make and revoke its API
 * tokens), delete (after a confirmation). Each action says what happened next to the
 * user it touched. Your own account is changed on the "My password" page instead.
 */
export function usersPage (t: T, me: PanelUser) {
  return (root: HTMLElement): void => {
    const result = outcome()
    const body = h('div', {})
    const say = (answer: ApiAnswer): string => errorText(t, answer)

    const load = async (): Promise<void> => {
      const locale = document.documentElement.lang || 'en'
      const [users, roles, permissions] = await Promise.all([api('GET', '/panel/api/users'), api('GET', '/panel/api/roles'),
        api('GET', `/panel/api/permissions?locale=${encodeURIComponent(locale)}`)])
      if (!users.ok) {
        result.error(say(users))
        return
      }
      // Without panel.manage.roles the role list is refused; users can still be listed.
      const roleList = roles.ok ? roles.body!.roles as Role[] : []
      const roleName = (id: number): string => roleList.find(r => r.id === id)?.name ?? `#${id}`
      // What a bot's token may be given: the nodes the caller holds, by their titles.
      const catalogue = (permissions.ok ? permissions.body!.permissions as Permission[] : [])
        .filter(p => me.permissions.includes('*') || me.permissions.includes(p.node))
      const username = h('input', { type: 'text', required: true, minlength: 3, maxlength: 32, pattern: '[A-Za-z0-9_\\-]+', autocomplete: 'off' }) as HTMLInputElement
      const email = h('input', { type: 'email', required: true, autocomplete: 'off' }) as HTMLInputElement
      const password = h('input', { type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
      // A new account is a member's, a person's, unless chosen otherwise: the least it can be.
      const role = h('select', { required: true }, ...roleList.map(r => h('option', { value: r.id, selected: r.name === 'member' }, r.name))) as HTMLSelectElement
      const bot = h('input', { type: 'checkbox', id: 'user-bot', 'aria-describedby': 'user-bot-hint', autocomplete: 'off' }) as HTMLInputElement
      bot.checked = false
      const passwordField = field(t('ui.field.password'), password)
      bot.addEventListener('change', () => {
        passwordField.hidden = bot.checked
        password.required = !bot.checked
      })
      const form = h('form', { class: 'stack', 'aria-label': t('ui.users.create'), autocomplete: 'off' },
        field(t('ui.field.username'), username), field(t('ui.field.email'), email),
        // The hint describes the box; it is not its name ("Bot account").
        h('div', { class: 'check' }, bot, h('div', {}, h('label', { for: 'user-bot' }, t('ui.users.bot')), h('br'), h('span', { class: 'hint', id: 'user-bot-hint' }, t('ui.users.botHint')))),
        passwordField, field(t('ui.field.role'), role),
        h('div', {}, h('button', { type: 'submit' }, t('ui.users.create')))) as HTMLFormElement
      onSubmit(form, result, say, () => api('POST', '/panel/api/users', {
        username: username.value, email: email.value, roleId: Number(role.value), ...(bot.checked ? { bot: true } : { password: password.value })
      }), async () => {
        await load()
        result.ok(t('ui.users.created'))
      })
      const heading = h('h2', { tabindex: -1 }, t('ui.users.all'))
      const list = h('ul', { class: 'items' })
      const removed = (user: User): void => {
        result.ok(t('ui.users.deleted', { username: user.username }))
        heading.focus()
      }
      list.replaceChildren(...(users.body!.users as User[]).map(user =>
        user.id === me.id ? ownItem(t, user, roleName) : userItem(t, me, user, roleList, roleName, say, removed, catalogue)))
      body.replaceChildren(
        h('div', { class: 'card' }, h('h2', {}, t('ui.users.create')), form),
        h('div', { class: 'card' }, heading, list))
    }
    root.replaceChildren(h('h1', {}, t('ui.users.title')), result, body)
    void load()
  }
}

function ownItem (t: T, user: User, roleName: (id: number) => string): HTMLElement {
  return h('li', {},
    h('div', { class: 'row' }, h('strong', {}, user.username), h('span', { class: 'tag' }, t('ui.users.you'))),
    h('span', { class: 'meta' }, `${user.email} · ${roleName(user.roleId)}`),
    h('p', { class: 'hint' }, h('a', { href: '#/password' }, t('ui.users.self'))))
}

/** One user and what can be done to them; the controls stay in place, so focus does too. */
function userItem (t: T, me: PanelUser, user: User, roles: readonly Role[], roleName: (id: number) => string,
  say: (answer: ApiAnswer) => string, removed: (user: User) => void, catalogue: readonly Permission[]): HTMLElement {
  const said: Outcome = outcome()
  const status = h('span', { class: 'tag warn' })
  const meta = h('span', { class: 'meta' })
  const show = (): void => {
    meta.textContent = `${user.email} · ${roleName(user.roleId)}`
    status.textContent = user.disabled ? t('ui.users.disabled') : ''
    status.hidden = !user.disabled
    toggle.textContent = t(user.disabled ? 'ui.users.enable' : 'ui.users.disable')
    toggle.setAttribute('aria-label', t(user.disabled ? 'ui.users.enableNamed' : 'ui.users.disableNamed', { username: user.username }))
  }
  const change = (payload: Record<string, unknown>) => api('PUT', `/panel/api/users/${user.id}`, payload)

  const roleSelect = h('select', { required: true }, ...roles.map(r => h('option', { value: r.id, selected: r.id === user.roleId }, r.name))) as HTMLSelectElement
  const roleForm = h('form', { class: 'inline', 'aria-label': t('ui.users.roleOf', { username: user.username }) },
    field(t('ui.field.role'), roleSelect),
    h('button', { type: 'submit', class: 'secondary' }, t('ui.users.changeRole'))) as HTMLFormElement
  onSubmit(roleForm, said, say, () => change({ roleId: Number(roleSelect.value) }), () => {
    user.roleId = Number(roleSelect.value)
    show()
    said.ok(t('ui.users.roleChanged', { username: user.username, role: roleName(user.roleId) }))
  })

  const newPassword = h('input', { type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' }) as HTMLInputElement
  const passwordForm = h('form', { class: 'inline', 'aria-label': t('ui.users.passwordFor', { username: user.username }) },
    field(t('ui.users.newPassword'), newPassword),
    h('button', { type: 'submit', class: 'secondary' }, t('ui.users.setPassword'))) as HTMLFormElement
  onSubmit(passwordForm, said, say, () => change({ password: newPassword.value }), () => {
    newPassword.value = ''
    said.ok(t('ui.users.passwordSet', { username: user.username }))
  })

  const toggle = h('button', { type: 'button', class: 'secondary' }) as HTMLButtonElement
  toggle.addEventListener('click', () => void act(toggle, () => change({ disabled: !user.disabled }), () => {
    user.disabled = !user.disabled
    show()
    said.ok(t(user.disabled ? 'ui.users.disabledDone' : 'ui.users.enabledDone', { username: user.username }))
  }))

  const actions = h('div', { class: 'row' })
  const item = h('li', {})
  const remove = h('button', { type: 'button', class: 'secondary danger-text', 'aria-label': t('ui.users.deleteNamed', { username: user.username }) }, t('ui.users.delete')) as HTMLButtonElement
  const ask = (): void => {
    const yes = h('button', { type: 'button', class: 'danger' }, t('ui.users.yesDelete')) as HTMLButtonElement
    const cancel = h('button', { type: 'button', class: 'secondary' }, t('ui.users.cancel')) as HTMLButtonElement
    cancel.addEventListener('click', () => {
      actions.replaceChildren(toggle, exportLink, remove)
      remove.focus()
    })
    yes.addEventListener('click', () => void act(yes, () => api('DELETE', `/panel/api/users/${user.id}`), () => {
      item.remove()
      removed(user)
    }))
    actions.replaceChildren(h('span', { class: 'confirm' }, t('ui.users.confirmDelete', { username: user.username })), yes, cancel)
    cancel.focus()
  }
  remove.addEventListener('click', ask)
  // Everything stored about them, as one file (a member's request for their data).
  // Each link named for its user: a list of links all called "Export data" tells a screen reader nothing.
  const exportLink = h('a', { href: `/panel/api/users/${user.id}/export`, download: '', class: 'button secondary', 'aria-label': t('ui.users.exportOf', { username: user.username }) }, t('ui.users.export'))
  actions.replaceChildren(toggle, exportLink, remove)

  /**
   * Runs one button's request: the button is off meanwhile (marked, not disabled, so it
   * keeps the focus); a refusal is said in words.
   */
  async function act (button: HTMLButtonElement, send: () => Promise<ApiAnswer>, done: () => void): Promise<void> {
    await buttonAction(button, send, done, said, say)
  }

  show()
  item.append(
    h('div', { class: 'row' }, h('strong', {}, user.username), user.bot ? h('span', { class: 'tag' }, t('ui.users.botTag')) : null, status),
    meta,
    h('div', { class: 'user-actions' }, roles.length === 0 ? null : roleForm, user.bot ? null : passwordForm, actions),
    said)
  if (user.bot) item.append(botTokens(t, user, say, catalogue))
  return item
}

/** A bot account's API tokens: the list with their last use, a form to make one (its secret shown once), revoking. */
function botTokens (t: T, user: User, say: (answer: ApiAnswer) => string, catalogue: readonly Permission[]): HTMLElement {
  const said = outcome()
  const list = h('ul', { class: 'items compact' })
  const secret = h('div', { role: 'status' })
  const path = `/panel/api/users/${user.id}/tokens`
  const locale = document.documentElement.lang || 'en'
  const load = async (): Promise<void> => {
    const answer = await api('GET', path)
    if (!answer.ok) {
      said.error(say(answer))
      return
    }
    const tokens = answer.body!.tokens as Token[]
    list.replaceChildren(...tokens.length === 0
      ? [h('li', { class: 'hint' }, t('ui.users.noTokens'))]
      : tokens.map(token => {
        const revoke = h('button', { type: 'button', class: 'secondary danger-text' }, t('ui.users.revoke')) as HTMLButtonElement
        revoke.addEventListener('click', () => void api('DELETE', `${path}/${token.id}`).then(async done => {
          if (!done.ok) return said.error(say(done))
          await load()
          said.ok(t('ui.users.revoked'))
        }))
        return h('li', {}, h('div', { class: 'row' }, h('strong', {}, token.name), revoke),
          h('span', { class: 'meta' }, t('ui.users.tokenMeta', {
            permissions: token.permissions.join(', '),
            expires: relativeTime(token.expiresAt, locale),
            used: token.lastUsedAt === null ? t('ui.users.neverUsed') : relativeTime(token.lastUsedAt, locale)
          })))
      }))
  }
  const name = h('input', { type: 'text', required: true, maxlength: 100, autocomplete: 'off' }) as HTMLInputElement
  // The permissions as the Roles page shows them, by their titles; posting ticked (what a bot is for).
  const nodes = h('fieldset', {}, h('legend', {}, t('ui.users.tokenPermissions')),
    ...catalogue.map(p => {
      const id = `token${user.id}-${p.node.replaceAll('.', '-')}`
      return h('div', { class: 'check' },
        h('input', { type: 'checkbox', id, name: 'token-permission', value: p.node, checked: p.node === 'addon.shoutbox.post' }),
        h('label', { for: id }, h('span', {}, p.title), h('br'), h('span', { class: 'hint' }, p.description)))
    }))
  const form = h('form', { class: 'stack', 'aria-label': t('ui.users.tokens', { username: user.username }) },
    field(t('ui.users.tokenName'), name), nodes,
    h('div', {}, h('button', { type: 'submit', class: 'secondary' }, t('ui.users.createToken')))) as HTMLFormElement
  const ticked = (): string[] => [...nodes.querySelectorAll<HTMLInputElement>('input:checked')].map(input => input.value)
  onSubmit(form, said, say, () => api('POST', path, { name: name.value, permissions: ticked() }), async made => {
    const value = made.body!.secret as string
    const copy = h('button', { type: 'button', class: 'secondary' }, t('ui.users.copySecret')) as HTMLButtonElement
    const copied = h('span', { role: 'status', class: 'hint' })
    copy.addEventListener('click', () => void navigator.clipboard.writeText(value).then(
      () => { copied.textContent = t('ui.users.copied') },
      () => { copied.textContent = t('ui.users.copyFailed') }))
    secret.replaceChildren(h('p', {}, t('ui.users.tokenSecret', { name: name.value })), h('p', {}, h('code', { class: 'secret-value' }, value), ' ', copy, ' ', copied))
    name.value = ''
    await load()
  })
  void load()
  return h('div', { class: 'bot-tokens' }, h('h3', {}, t('ui.users.tokens', { username: user.username })), list, form, secret, said)
}
