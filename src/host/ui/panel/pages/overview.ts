import { h, type OverviewSection } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

/**
 * The panel's first page: the host's figures (accounts, members), then each addon's section
 * (the Shoutbox draws its shouts per day and live readers), for whoever may see it.
 */
export function overviewPage (t: T, locale: string, sections: readonly OverviewSection[]) {
  return (root: HTMLElement): () => void => {
    const accounts = h('p', { class: 'figure', id: 'overview-accounts' }, '…')
    const members = h('p', { class: 'figure', id: 'overview-members' }, '…')
    const host = h('section', { class: 'card' }, h('h2', {}, t('ui.overview.site')),
      h('dl', { class: 'figures' },
        h('div', {}, h('dt', {}, t('ui.overview.accounts')), h('dd', {}, accounts)),
        h('div', {}, h('dt', {}, t('ui.overview.members')), h('dd', {}, members))))
    const parts = sections.map(section => ({ section, card: h('section', { class: 'card' }, h('h2', {}, section.title)) }))
    root.replaceChildren(h('h1', {}, t('ui.overview.title')), host, ...parts.map(part => part.card))
    void api('GET', '/panel/api/overview').then(answer => {
      members.textContent = answer.ok ? (answer.body!.members as number).toLocaleString(locale) : errorText(t, answer)
      accounts.textContent = answer.ok ? (answer.body!.accounts as number).toLocaleString(locale) : ''
    })
    const leaves = parts.map(({ section, card }) => {
      const body = h('div', {})
      card.append(body)
      return section.render(body)
    })
    return () => { for (const leave of leaves) if (typeof leave === 'function') leave() }
  }
}
