import { h } from '../../../sdk/ui.js'
import { api } from '../panel/api.js'
import { hostStrings } from '../panel/strings.js'

/**
 * The `/privacy` page: what the site stores about people, why, and for how long, as the
 * server says from its settings now (`GET /api/privacy`), in a table.
 */
const locale = document.documentElement.lang || 'en'
const t = hostStrings(locale)
const root = document.querySelector<HTMLElement>('[data-privacy]')

interface Note { readonly what: string, readonly why: string, readonly kept: string }

if (root !== null) {
  root.replaceChildren(h('h1', {}, t('site.privacy.title')), h('p', {}, t('site.privacy.intro')))
  void api('GET', `/api/privacy?locale=${locale}`).then(answer => {
    if (!answer.ok) {
      root.append(h('p', { role: 'alert' }, t('site.privacy.failed')))
      return
    }
    const notes = answer.body!.notes as Note[]
    root.append(
      h('div', { class: 'table-scroll' }, h('table', { class: 'privacy' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('site.privacy.what')), h('th', { scope: 'col' }, t('site.privacy.why')), h('th', { scope: 'col' }, t('site.privacy.kept')))),
        // Each cell names its column too: on a phone the rows are read as cards.
        h('tbody', {}, ...notes.map(note => h('tr', {}, h('th', { scope: 'row' }, note.what),
          h('td', { 'data-label': t('site.privacy.why') }, note.why), h('td', { 'data-label': t('site.privacy.kept') }, note.kept)))))),
      h('p', {}, t('site.privacy.yours')))
  })
}
