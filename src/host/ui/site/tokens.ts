import { field, h, outcome, relativeTime } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { errorText, type hostStrings } from '../panel/strings.js'

interface Token { readonly id: number, readonly name: string, readonly permissions: readonly string[], readonly expiresAt: number, readonly lastUsedAt: number | null }

/**
 * "API tokens", folded under the preferences: a member's tokens for their own scripts —
 * the list with each one's last use, a form to make one with some of the member's own
 * permissions (its secret shown once), and revoking.
 */
export function apiTokens (t: ReturnType<typeof hostStrings>, locale: string): HTMLElement {
  const result = outcome()
  const list = h('ul', { class: 'account-tokens' })
  const secret = h('div', { role: 'status' })
  const name = h('input', { type: 'text', required: true, maxlength: 100, autocomplete: 'off' }) as HTMLInputElement
  const nodes = h('fieldset', {}, h('legend', {}, t('site.tokens.permissions')))
  const form = h('form', { class: 'account-form' }, field(t('site.tokens.name'), name), nodes, result,
    h('div', { class: 'account-row' }, h('button', { type: 'submit' }, t('site.tokens.create')))) as HTMLFormElement

  const load = async (): Promise<void> => {
    const answer = await api('GET', '/api/users/me/tokens')
    if (!answer.ok) return result.error(errorText(t, answer))
    const tokens = answer.body!.tokens as Token[]
    list.replaceChildren(...tokens.length === 0
      ? [h('li', { class: 'hint' }, t('site.tokens.none'))]
      : tokens.map(token => {
        const revoke = h('button', { type: 'button', class: 'secondary' }, t('site.tokens.revoke')) as HTMLButtonElement
        revoke.setAttribute('aria-label', t('site.tokens.revokeNamed', { name: token.name }))
        revoke.addEventListener('click', () => void api('DELETE', `/api/users/me/tokens/${token.id}`).then(async done => {
          if (!done.ok) return result.error(errorText(t, done))
          await load()
          result.ok(t('site.tokens.revoked', { name: token.name }))
        }))
        return h('li', {}, h('strong', {}, token.name), ' ', h('span', { class: 'hint' }, t('site.tokens.meta', {
          permissions: token.permissions.join(', '),
          expires: relativeTime(token.expiresAt, locale),
          used: token.lastUsedAt === null ? t('site.tokens.never') : relativeTime(token.lastUsedAt, locale)
        })), ' ', revoke)
      }))
  }
  // The member's own permissions are what a token of theirs may be given.
  void api('GET', '/api/auth/me').then(answer => {
    if (!answer.ok) return
    const held = (answer.body!.user as { permissions: string[] }).permissions
    nodes.append(...held.map((node, i) => h('label', { class: 'choice' },
      h('input', { type: 'checkbox', name: 'permission', value: node, id: `token-node-${i}`, checked: node === 'addon.shoutbox.post' }), node)))
  })
  form.addEventListener('submit', event => {
    event.preventDefault()
    const permissions = [...form.querySelectorAll<HTMLInputElement>('input[name=permission]:checked')].map(box => box.value)
    void api('POST', '/api/users/me/tokens', { name: name.value, permissions }).then(async answer => {
      if (!answer.ok) return result.error(errorText(t, answer))
      secret.replaceChildren(h('p', {}, t('site.tokens.secret')), h('p', {}, h('code', { class: 'token-secret' }, answer.body!.secret as string)))
      name.value = ''
      await load()
    })
  })
  void load()
  return h('details', { class: 'account-tokens-box' }, h('summary', {}, t('site.tokens.title')),
    h('p', { class: 'hint' }, t('site.tokens.intro')), list, secret, form)
}
