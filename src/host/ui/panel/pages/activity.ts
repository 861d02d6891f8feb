import { richText } from '../../../../sdk/rich-text.js'
import { h, relativeTime } from '../../../../sdk/ui.js'
import { api } from '../api.js'
import { errorText, type T } from '../strings.js'

interface Entry { id: number, text: string, createdAt: number }

/** The activity feed, in the panel's language, 20 a page. */
export function activityPage (t: T, locale: string) {
  return (root: HTMLElement): void => {
    let page = 1
    const list = h('ul', { class: 'items' })
    const pager = h('div', { class: 'pager' })
    const load = async (): Promise<void> => {
      const answer = await api('GET', `/panel/api/logs/activity?page=${page}&locale=${encodeURIComponent(locale)}`)
      if (!answer.ok) {
        list.replaceChildren(h('li', { class: 'message error' }, errorText(t, answer)))
        return
      }
      const logs = answer.body!.logs as Entry[]
      const totalPages = answer.body!.totalPages as number
      list.replaceChildren(...(logs.length === 0
        ? [h('li', {}, t('ui.activity.empty'))]
        : logs.map(entry => h('li', {},
          // Entries quote shouts: their addresses are links here too.
          h('span', { class: 'text' }, richText(entry.text, undefined, { spoiler: t('ui.spoiler') })),
          h('time', { class: 'meta', datetime: new Date(entry.createdAt).toISOString(), title: new Date(entry.createdAt).toLocaleString(locale) },
            relativeTime(entry.createdAt, locale))))))
      pager.replaceChildren(
        h('button', { type: 'button', class: 'secondary', disabled: page <= 1, onclick: () => { page--; void load() } }, t('ui.previous')),
        h('span', {}, t('ui.pageOf', { page, total: totalPages })),
        h('button', { type: 'button', class: 'secondary', disabled: page >= totalPages, onclick: () => { page++; void load() } }, t('ui.next')))
    }
    root.replaceChildren(h('h1', {}, t('ui.activity.title')), h('div', { class: 'card' }, list, pager))
    void load()
  }
}
