import { KnownUsers, richText } from '../../sdk/rich-text.js'
import { barChart, field, h, onSubmit, outcome, relativeTime, type ApiAnswer, type PanelHost } from '../../sdk/ui.js'
import type { Shout } from '../schemas.js'
import { LiveShouts } from './shared/live-shouts.js'
import { shoutboxStrings } from './strings.js'

const MANAGE = 'addon.shoutbox.manage.shoutbox'
/** Shouts the Shouts page shows at first, and adds with each "Older shouts". */
const PANEL_PAGE = 50

interface Mute { userId: number, username: string, until: number | null, reason: string | null, by: string }

/** The addon's panel pages: Shouts, Mutes and Shoutbox settings. The host decides who sees them. */
export default function register (panel: PanelHost): void {
  const t = shoutboxStrings(panel.locale)
  const addonError = (key: string, values?: Record<string, unknown>): string | undefined => t.has(key) ? t(key, values) : undefined
  const say = (answer: ApiAnswer): string => panel.errorText(answer, addonError)

  panel.addPage({ id: 'shouts', title: t('ui.shouts.title'), permission: MANAGE, render: root => shoutsPage(root) })
  panel.addPage({ id: 'mutes', title: t('ui.mutes.title'), permission: MANAGE, render: root => mutesPage(root) })
  panel.addPage({ id: 'settings', title: t('ui.settings.title'), permission: MANAGE, render: root => settingsPage(root) })
  panel.addOverview({ title: t('ui.overview.title'), permission: MANAGE, render: root => overview(root) })
  panel.addSetupStep({ title: t('ui.setupStep.title'), permission: MANAGE, render: (root, done) => setupStep(root, done) })

  /** The wizard's question: how many shouts the list shows (50 filled in; empty: all, as the seed allows). */
  function setupStep (root: HTMLElement, done: () => void): void {
    const result = outcome()
    const maxShouts = h('input', { type: 'number', id: 'setup-max-shouts', min: 0, step: 1, value: '50' }) as HTMLInputElement
    const form = h('form', { class: 'stack' },
      h('p', {}, t('ui.setupStep.intro')),
      field(t('ui.settings.maxShouts'), maxShouts, t('ui.setupStep.hint')),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.setupStep.save')))) as HTMLFormElement
    onSubmit(form, result, say, () => panel.api('PUT', '/panel/api/shoutbox/config', { maxShouts: maxShouts.value === '' ? null : Number(maxShouts.value) }), done)
    root.replaceChildren(form)
  }

  /** The overview page's section: live readers now, and shouts per day as a chart drawn here. */
  function overview (root: HTMLElement): void {
    const readers = h('dd', { id: 'overview-readers' }, '…')
    const mutes = h('dd', { id: 'overview-mutes' }, '…')
    const chart = h('figure', { class: 'chart' }, h('figcaption', {}, t('ui.overview.perDay')))
    root.replaceChildren(
      h('dl', { class: 'figures' },
        h('div', { title: t('ui.overview.readersHint') }, h('dt', {}, t('ui.overview.readers')), readers),
        h('div', {}, h('dt', {}, t('ui.overview.mutes')), mutes)),
      chart)
    void panel.api('GET', '/panel/api/shoutbox/overview').then(answer => {
      if (!answer.ok) {
        readers.textContent = '–'
        mutes.textContent = '–'
        chart.append(h('p', { class: 'message error' }, say(answer)))
        return
      }
      const days = answer.body!.days as Array<{ day: string, shouts: number }>
      readers.textContent = (answer.body!.readers as number).toLocaleString(panel.locale)
      mutes.textContent = (answer.body!.mutes as number).toLocaleString(panel.locale)
      const label = (day: string): string => new Date(`${day}T00:00:00Z`).toLocaleDateString(panel.locale, { month: 'short', day: 'numeric', timeZone: 'UTC' })
      const total = days.reduce((sum, day) => sum + day.shouts, 0)
      chart.append(
        barChart(days.map(day => ({ label: label(day.day), value: day.shouts })), { title: t('ui.overview.perDay') }),
        h('p', { class: 'hint' }, t('ui.overview.total', { count: total })))
    })
  }

  function shoutsPage (root: HTMLElement): () => void {
    const result = outcome()
    const message = h('textarea', { id: 'shout-message', name: 'message', rows: 3 }) as HTMLTextAreaElement
    const left = h('span', { class: 'hint', id: 'shout-left' })
    let maxLength = 500
    const count = (): void => { left.textContent = t('ui.shouts.left', { count: maxLength - [...message.value].length }) }
    message.setAttribute('aria-describedby', 'shout-left')
    message.addEventListener('input', count)
    const post = h('button', { type: 'submit' }, t('ui.shouts.post'))
    const form = h('form', { class: 'stack card' },
      h('div', { class: 'field' }, h('label', { for: 'shout-message' }, t('ui.shouts.message')), message, left),
      result,
      h('div', {}, post)) as HTMLFormElement
    const list = h('ul', { class: 'items' })
    const known = new KnownUsers()
    const olderButton = h('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => void showOlder() }, t('history.older')) as HTMLButtonElement
    const draw = (): void => {
      if (!live.loaded) return
      const pinned = new Set(live.pinned.map(shout => shout.id))
      list.replaceChildren(...(live.shouts.length === 0 ? [h('li', {}, t('ui.shouts.empty'))] : live.shouts.map(shout => item(shout, pinned.has(shout.id)))))
      olderButton.hidden = live.older === null
    }
    // Every shout, 50 at a time, newest first; kept current by the stream, so a post, edit,
    // pin or deletion by anyone (another admin, another process) shows without a reload.
    const live = new LiveShouts({
      pageSize: PANEL_PAGE,
      changed: fresh => {
        draw()
        void known.learn(fresh.map(shout => shout.message)).then(found => { if (found) draw() })
      }
    })
    const showOlder = async (): Promise<void> => {
      olderButton.disabled = true
      await live.more()
      olderButton.disabled = false
    }
    const togglePin = async (shout: Shout, pin: boolean): Promise<void> => {
      const answer = await panel.api('PUT', `/panel/api/shoutbox/${shout.id}/pin`, { pinned: pin })
      if (answer.ok) result.ok(t(pin ? 'ui.shouts.pinnedDone' : 'ui.shouts.unpinnedDone'))
      else result.error(say(answer))
    }
    const item = (shout: Shout, isPinned: boolean): HTMLElement => {
      const actions = h('div', { class: 'row' })
      const pinButton = (): HTMLElement => h('button', {
        type: 'button', class: 'secondary', 'aria-label': `${t(isPinned ? 'ui.shouts.unpin' : 'ui.shouts.pin')}: ${shout.message.slice(0, 40)}`, onclick: () => void togglePin(shout, !isPinned)
      }, t(isPinned ? 'ui.shouts.unpin' : 'ui.shouts.pin'))
      const ask = (): void => {
        actions.replaceChildren(
          h('span', {}, t('ui.shouts.confirm')),
          h('button', { type: 'button', class: 'danger', onclick: () => void remove() }, t('ui.shouts.confirmDelete')),
          h('button', { type: 'button', class: 'secondary', onclick: reset }, t('ui.shouts.cancel')))
        actions.querySelector<HTMLButtonElement>('button.secondary')?.focus()
      }
      const reset = (): void => {
        actions.replaceChildren(pinButton(), h('button', { type: 'button', class: 'secondary', 'aria-label': `${t('ui.shouts.delete')}: ${shout.message.slice(0, 40)}`, onclick: ask }, t('ui.shouts.delete')))
      }
      const remove = async (): Promise<void> => {
        const answer = await panel.api('DELETE', `/panel/api/shoutbox/${shout.id}`)
        if (answer.ok || answer.status === 404) {
          live.remove(shout.id)
          result.ok(t('ui.shouts.deleted'))
        } else {
          result.error(say(answer))
        }
      }
      reset()
      return h('li', {},
        h('span', { class: 'text' }, richText(shout.message, known.isUser)),
        h('span', { class: 'meta' }, isPinned ? h('strong', {}, t('ui.shouts.pinned')) : null, isPinned ? ' · ' : null, t('ui.shouts.by', { username: shout.username }), ' · ',
          h('time', { datetime: new Date(shout.date).toISOString(), title: new Date(shout.date).toLocaleString(panel.locale) }, relativeTime(shout.date, panel.locale))),
        actions)
    }

    onSubmit(form, result, say, () => {
      if (message.value.trim() === '') {
        result.error(t('errors.BLANK_MESSAGE'))
        return undefined
      }
      return panel.api('POST', '/panel/api/shoutbox', { message: message.value })
    }, async () => {
      message.value = ''
      count()
      result.ok(t('ui.shouts.posted'))
    })

    root.replaceChildren(h('h1', {}, t('ui.shouts.title')), form, h('div', { class: 'card' }, list, olderButton))
    void panel.api('GET', '/panel/api/shoutbox/config').then(answer => {
      if (answer.ok) maxLength = answer.body!.maxMessageLength as number
      count()
    })
    live.start()
    return () => live.stop()
  }

  /** Who is muted, until when, why and by whom; each with a Lift button. Expired mutes are over and not shown. */
  function mutesPage (root: HTMLElement): () => void {
    const result = outcome()
    const table = h('table', { class: 'mutes' })
    const body = h('tbody', {})
    const when = (ms: number): string => new Date(ms).toLocaleString(panel.locale, { dateStyle: 'medium', timeStyle: 'short' })
    const load = async (focusAfter?: number): Promise<void> => {
      const answer = await panel.api('GET', '/panel/api/shoutbox/mutes')
      if (!answer.ok) {
        result.error(say(answer))
        return
      }
      const mutes = answer.body!.mutes as Mute[]
      body.replaceChildren(...mutes.map(row))
      table.hidden = mutes.length === 0
      empty.hidden = mutes.length !== 0
      if (focusAfter !== undefined) {
        // Focus stays in the list: on the row that took the lifted one's place, or the page's heading.
        const buttons = [...body.querySelectorAll<HTMLButtonElement>('button')]
        const next = buttons[Math.min(focusAfter, buttons.length - 1)] ?? heading
        next.focus()
      }
    }
    const row = (mute: Mute, index: number): HTMLElement => {
      const lift = async (): Promise<void> => {
        const answer = await panel.api('DELETE', `/panel/api/shoutbox/mutes/${mute.userId}`)
        if (answer.ok || answer.status === 404) result.ok(t('ui.mutes.lifted', { username: mute.username }))
        else result.error(say(answer))
        await load(index)
      }
      return h('tr', {},
        h('th', { scope: 'row', 'data-label': t('ui.mutes.member') }, mute.username),
        h('td', { 'data-label': t('ui.mutes.until') }, mute.until === null
          ? t('ui.mutes.untilLifted')
          : h('time', { datetime: new Date(mute.until).toISOString() }, when(mute.until))),
        h('td', { 'data-label': t('ui.mutes.reason') }, mute.reason ?? h('span', { class: 'hint' }, t('ui.mutes.noReason'))),
        h('td', { 'data-label': t('ui.mutes.by') }, mute.by),
        h('td', {}, h('button', { type: 'button', class: 'secondary', 'aria-label': t('ui.mutes.liftLabel', { username: mute.username }), onclick: () => void lift() }, t('ui.mutes.lift'))))
    }
    table.append(
      h('thead', {}, h('tr', {}, ...['member', 'until', 'reason', 'by'].map(key => h('th', { scope: 'col' }, t(`ui.mutes.${key}`))), h('td', {}))),
      body)
    const empty = h('p', {}, t('ui.mutes.empty'))
    const heading = h('h1', { tabindex: -1 }, t('ui.mutes.title'))
    root.replaceChildren(heading, h('p', { class: 'hint' }, t('ui.mutes.intro')), h('div', { class: 'card' }, result, table, empty))
    void load()
    // A mute ends by itself: look again every half minute, so the page never shows one that is over for long.
    const timer = setInterval(() => void load(), 30_000)
    return () => clearInterval(timer)
  }

  function settingsPage (root: HTMLElement): void {
    const result = outcome()
    const maxShouts = h('input', { type: 'number', id: 'max-shouts', min: 0, step: 1 }) as HTMLInputElement
    const maxMessageLength = h('input', { type: 'number', id: 'max-length', min: 1, max: 10000, step: 1, required: true }) as HTMLInputElement
    const members = {
      minSecondsBetweenShouts: h('input', { type: 'number', id: 'min-seconds', min: 0, max: 3600, step: 1, required: true }) as HTMLInputElement,
      maxShoutsPerMinute: h('input', { type: 'number', id: 'per-minute', min: 1, max: 600, step: 1, required: true }) as HTMLInputElement,
      editWindowSeconds: h('input', { type: 'number', id: 'edit-window', min: 0, max: 86400, step: 1, required: true }) as HTMLInputElement
    }
    const maxPinned = h('input', { type: 'number', id: 'max-pinned', min: 0, max: 20, step: 1, required: true }) as HTMLInputElement
    const keepDays = h('input', { type: 'number', id: 'keep-days', min: 1, max: 3650, step: 1 }) as HTMLInputElement
    // Shown while maxShouts is empty on a board of over 1,000 shouts: the list would send them all.
    const unbounded = h('p', { class: 'message warning', id: 'max-shouts-warning', role: 'status', hidden: true }, t('ui.settings.maxShoutsWarning'))
    let manyShouts = false
    const warn = (): void => { unbounded.hidden = !(manyShouts && maxShouts.value === '') }
    maxShouts.addEventListener('input', warn)
    const form = h('form', { class: 'stack card' },
      field(t('ui.settings.maxShouts'), maxShouts, t('ui.settings.maxShoutsHint')),
      unbounded,
      field(t('ui.settings.maxMessageLength'), maxMessageLength),
      h('fieldset', { class: 'stack' }, h('legend', {}, t('ui.settings.members')),
        ...Object.entries(members).map(([key, input]) => field(t(`ui.settings.${key}`), input, t(`ui.settings.${key}Hint`)))),
      h('fieldset', { class: 'stack' }, h('legend', {}, t('ui.settings.history')),
        field(t('ui.settings.maxPinned'), maxPinned, t('ui.settings.maxPinnedHint')),
        field(t('ui.settings.keepDays'), keepDays, t('ui.settings.keepDaysHint'))),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.settings.save')))) as HTMLFormElement
    onSubmit(form, result, say, () => panel.api('PUT', '/panel/api/shoutbox/config', {
      maxShouts: maxShouts.value === '' ? null : Number(maxShouts.value), maxMessageLength: Number(maxMessageLength.value),
      ...Object.fromEntries(Object.entries(members).map(([key, input]) => [key, Number(input.value)])),
      maxPinned: Number(maxPinned.value),
      keepDays: keepDays.value === '' ? null : Number(keepDays.value)
    }), () => result.ok(t('ui.settings.saved')))
    root.replaceChildren(h('h1', {}, t('ui.settings.title')), form)
    void panel.api('GET', '/panel/api/shoutbox/config').then(answer => {
      if (!answer.ok) {
        result.error(say(answer))
        return
      }
      maxShouts.value = answer.body!.maxShouts === null ? '' : String(answer.body!.maxShouts)
      // The overview's answer may have come first: the warning follows the value now shown.
      warn()
      maxMessageLength.value = String(answer.body!.maxMessageLength)
      for (const [key, input] of Object.entries(members)) input.value = String(answer.body![key])
      maxPinned.value = String(answer.body!.maxPinned)
      keepDays.value = answer.body!.keepDays === null ? '' : String(answer.body!.keepDays)
    })
    void panel.api('GET', '/panel/api/shoutbox/overview').then(answer => {
      manyShouts = answer.ok && answer.body!.manyShouts === true
      warn()
    })
  }
}
