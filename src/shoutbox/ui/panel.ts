import { KnownUsers } from '../../sdk/rich-text.js'
import { barChart, field, h, onSubmit, outcome, relativeTime, type ApiAnswer, type PanelHost } from '../../sdk/ui.js'
import type { Shout, ShoutPicture } from '../schemas.js'
import { incomingHooksPage } from '../bridges/ui/incoming-page.js'
import { LiveShouts } from './shared/live-shouts.js'
import { DEFAULT_ROOM, quotedWords, shoutText } from './shared/shout-view.js'
import { pictureGallery } from './shared/pictures.js'
import { shoutboxStrings } from './strings.js'

const MANAGE = 'addon.shoutbox.manage.shoutbox'
/** Shouts the Shouts page shows at first, and adds with each "Older shouts". */
const PANEL_PAGE = 50

interface ReviewItem {
  shout: { id: number, message: string, username: string, date: number, room: string, uploads?: ShoutPicture[] }
  state: 'held' | 'hidden' | 'reported'
  why: 'word' | 'new-member' | 'edited' | 'reports' | 'guest' | 'pictures'
  reports: Array<{ id: number, reporter: string, reason: string, note: string | null, createdAt: number }>
}
interface Word { id: number, pattern: string, action: 'block' | 'censor' | 'hold', createdAt: number }
interface Mute { userId: number, username: string, until: number | null, reason: string | null, by: string }
interface PanelRoom { id: number, slug: string, name: string, description: string, read: string, post: string, position: number, archived: boolean, slowModeSeconds: number, guestsPost: boolean }

/** Who may read a room, as the Rooms page offers it: value → the string naming it. */
const READ_CHOICES = (slug: string): Array<[string, string]> => [
  ['everyone', 'ui.rooms.readEveryone'], ['signed-in', 'ui.rooms.readSignedIn'], [`addon.shoutbox.room.${slug}.read`, 'ui.rooms.readOwn'], ['panel.access', 'ui.rooms.readStaff']
]
/** Who may post in a room. */
const POST_CHOICES = (slug: string): Array<[string, string]> => [
  ['addon.shoutbox.post', 'ui.rooms.postMembers'], [`addon.shoutbox.room.${slug}.post`, 'ui.rooms.postOwn'], ['panel.access', 'ui.rooms.postStaff'], [MANAGE, 'ui.rooms.postModerators']
]

/** The addon's panel pages: Shouts, Rooms, Mutes, Review, Words and Shoutbox settings. The host decides who sees them. */
export default function register (panel: PanelHost): void {
  const t = shoutboxStrings(panel.locale)
  const addonError = (key: string, values?: Record<string, unknown>): string | undefined => t.has(key) ? t(key, values) : undefined
  const say = (answer: ApiAnswer): string => panel.errorText(answer, addonError)

  panel.addPage({ id: 'shouts', title: t('ui.shouts.title'), permission: MANAGE, render: root => shoutsPage(root) })
  panel.addPage({ id: 'rooms', title: t('ui.rooms.title'), permission: MANAGE, render: root => roomsPage(root) })
  panel.addPage({ id: 'mutes', title: t('ui.mutes.title'), permission: MANAGE, render: root => mutesPage(root) })
  panel.addPage({ id: 'review', title: t('ui.review.title'), permission: MANAGE, render: root => reviewPage(root) })
  panel.addPage({ id: 'words', title: t('ui.words.title'), permission: MANAGE, render: root => wordsPage(root) })
  panel.addPage({ id: 'settings', title: t('ui.settings.title'), permission: MANAGE, render: root => settingsPage(root) })
  // Beside the host's Webhooks page (each links to the other): who may manage webhooks manages these.
  panel.addPage({ id: 'incoming', title: t('ui.incoming.title'), permission: 'panel.manage.webhooks', render: incomingHooksPage(panel, t, say) })
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
    const review = h('dd', { id: 'overview-review' }, '…')
    const words = h('dd', { id: 'overview-words' }, '…')
    const chart = h('figure', { class: 'chart' }, h('figcaption', {}, t('ui.overview.perDay')))
    root.replaceChildren(
      h('dl', { class: 'figures' },
        h('div', { title: t('ui.overview.readersHint') }, h('dt', {}, t('ui.overview.readers')), readers),
        h('div', {}, h('dt', {}, t('ui.overview.mutes')), mutes),
        h('div', {}, h('dt', {}, h('a', { href: '#/shoutbox/review' }, t('ui.overview.review'))), review),
        h('div', {}, h('dt', {}, h('a', { href: '#/shoutbox/words' }, t('ui.overview.words'))), words)),
      chart)
    void panel.api('GET', '/panel/api/shoutbox/overview').then(answer => {
      if (!answer.ok) {
        for (const figure of [readers, mutes, review, words]) figure.textContent = '–'
        chart.append(h('p', { class: 'message error' }, say(answer)))
        return
      }
      const days = answer.body!.days as Array<{ day: string, shouts: number }>
      readers.textContent = (answer.body!.readers as number).toLocaleString(panel.locale)
      mutes.textContent = (answer.body!.mutes as number).toLocaleString(panel.locale)
      review.textContent = (answer.body!.review as number).toLocaleString(panel.locale)
      words.textContent = (answer.body!.words as number).toLocaleString(panel.locale)
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
    // Which room the page shows and publishes in (every room, archived ones to read).
    const roomChoice = h('select', { id: 'shout-room', onchange: () => void changeRoom() }, h('option', { value: DEFAULT_ROOM }, 'General')) as HTMLSelectElement
    let roomsNow: PanelRoom[] = []
    const changeRoom = async (): Promise<void> => {
      const room = roomsNow.find(each => each.slug === roomChoice.value)
      post.toggleAttribute('disabled', room?.archived === true)
      list.replaceChildren()
      await live.show(roomChoice.value)
    }
    const olderButton = h('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => void showOlder() }, t('history.older')) as HTMLButtonElement
    const draw = (): void => {
      if (!live.loaded) return
      // A redraw keeps the keyboard's place: the focus goes back to the same button of the same shout.
      const focused = list.contains(document.activeElement) ? document.activeElement as HTMLElement : undefined
      const place = focused?.closest<HTMLElement>('li[data-id]')?.dataset.id
      const action = focused?.dataset.action
      const pinned = new Set(live.pinned.map(shout => shout.id))
      list.replaceChildren(...(live.shouts.length === 0 ? [h('li', {}, t('ui.shouts.empty'))] : live.shouts.map(shout => item(shout, pinned.has(shout.id)))))
      olderButton.hidden = live.older === null
      if (place !== undefined && action !== undefined) list.querySelector<HTMLElement>(`li[data-id="${place}"] [data-action="${action}"]`)?.focus()
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
        type: 'button', class: 'secondary', 'data-action': 'pin', 'aria-label': `${t(isPinned ? 'ui.shouts.unpin' : 'ui.shouts.pin')}: ${quotedWords(shout.message.slice(0, 40), panel.locale)}`, onclick: () => void togglePin(shout, !isPinned)
      }, t(isPinned ? 'ui.shouts.unpin' : 'ui.shouts.pin'))
      const ask = (): void => {
        actions.replaceChildren(
          h('span', {}, t('ui.shouts.confirm')),
          h('button', { type: 'button', class: 'danger', onclick: () => void remove() }, t('ui.shouts.confirmDelete')),
          h('button', { type: 'button', class: 'secondary', onclick: reset }, t('ui.shouts.cancel')))
        actions.querySelector<HTMLButtonElement>('button.secondary')?.focus()
      }
      const reset = (): void => {
        actions.replaceChildren(pinButton(), h('button', { type: 'button', class: 'secondary', 'data-action': 'delete', 'aria-label': `${t('ui.shouts.delete')}: ${quotedWords(shout.message.slice(0, 40), panel.locale)}`, onclick: ask }, t('ui.shouts.delete')))
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
      return h('li', { 'data-id': String(shout.id) },
        h('span', { class: 'text' }, shoutText(shout.message, panel.locale, known.isUser)),
        h('span', { class: 'meta' }, isPinned ? h('strong', {}, t('ui.shouts.pinned')) : null, isPinned ? ' · ' : null, t('ui.shouts.by', { username: shout.username }), ' · ',
          h('time', { datetime: new Date(shout.date).toISOString(), title: new Date(shout.date).toLocaleString(panel.locale) }, relativeTime(shout.date, panel.locale))),
        actions)
    }

    onSubmit(form, result, say, () => {
      if (message.value.trim() === '') {
        result.error(t('errors.BLANK_MESSAGE'))
        return undefined
      }
      return panel.api('POST', '/panel/api/shoutbox', { message: message.value, room: roomChoice.value })
    }, async () => {
      message.value = ''
      count()
      result.ok(t('ui.shouts.posted'))
    })

    root.replaceChildren(h('h1', {}, t('ui.shouts.title')),
      h('div', { class: 'field' }, h('label', { for: 'shout-room' }, t('ui.shouts.room')), roomChoice),
      form, h('div', { class: 'card' }, list, olderButton))
    void panel.api('GET', '/panel/api/shoutbox/rooms').then(answer => {
      if (!answer.ok) return
      roomsNow = answer.body!.rooms as PanelRoom[]
      roomChoice.replaceChildren(...roomsNow.map(room => h('option', { value: room.slug, selected: room.slug === live.room },
        room.archived ? t('ui.rooms.archivedName', { name: room.name }) : room.name)))
    })
    void panel.api('GET', '/panel/api/shoutbox/config').then(answer => {
      if (answer.ok) maxLength = answer.body!.maxMessageLength as number
      count()
    })
    live.start()
    return () => live.stop()
  }

  /**
   * The rooms: each with who reads it, who posts in it and its slow mode, to change in
   * place; moved up or down, archived or brought back; and a form for a new one.
   */
  function roomsPage (root: HTMLElement): void {
    const result = outcome()
    const body = h('div', { class: 'stack' })
    const heading = h('h1', { tabindex: -1 }, t('ui.rooms.title'))
    const choice = (id: string, choices: Array<[string, string]>, value: string): HTMLSelectElement => {
      const known = choices.some(([node]) => node === value)
      return h('select', { id }, ...choices.map(([node, key]) => h('option', { value: node, selected: node === value }, t(key))),
        known ? null : h('option', { value, selected: true }, value)) as HTMLSelectElement
    }
    const load = async (focusId?: string): Promise<void> => {
      const answer = await panel.api('GET', '/panel/api/shoutbox/rooms')
      if (!answer.ok) {
        result.error(say(answer))
        return
      }
      const rooms = answer.body!.rooms as PanelRoom[]
      body.replaceChildren(...rooms.map((room, index) => roomCard(room, rooms[index - 1], rooms[index + 1])))
      if (focusId !== undefined) (document.getElementById(focusId) ?? heading).focus()
    }
    const change = async (room: PanelRoom, changes: Record<string, unknown>, done: string, focusId?: string): Promise<void> => {
      const answer = await panel.api('PUT', `/panel/api/shoutbox/rooms/${room.id}`, changes)
      // Named as it is now (a rename says the new name).
      if (answer.ok) result.ok(t(done, { name: (answer.body!.room as PanelRoom).name }))
      else result.error(say(answer))
      await load(focusId)
    }
    /** Swaps two neighbours' places (positions are made distinct first, by the order shown). */
    const move = async (room: PanelRoom, other: PanelRoom, direction: 'up' | 'down'): Promise<void> => {
      const [mine, theirs] = room.position === other.position
        ? (direction === 'up' ? [other.position, other.position + 1] : [room.position + 1, room.position])
        : [other.position, room.position]
      const first = await panel.api('PUT', `/panel/api/shoutbox/rooms/${room.id}`, { position: mine })
      const second = first.ok ? await panel.api('PUT', `/panel/api/shoutbox/rooms/${other.id}`, { position: theirs }) : first
      if (second.ok) result.ok(t('ui.rooms.moved', { name: room.name }))
      else result.error(say(second))
      await load(`room-${room.id}-${direction}`)
    }
    const roomCard = (room: PanelRoom, above: PanelRoom | undefined, below: PanelRoom | undefined): HTMLElement => {
      const id = `room-${room.id}`
      const name = h('input', { type: 'text', id: `${id}-name`, value: room.name, maxlength: 60, required: true }) as HTMLInputElement
      const description = h('input', { type: 'text', id: `${id}-description`, value: room.description, maxlength: 500 }) as HTMLInputElement
      const read = choice(`${id}-read`, READ_CHOICES(room.slug), room.read)
      // The default room stays public: the seed's list is.
      if (room.id === 1) read.disabled = true
      const post = choice(`${id}-post`, POST_CHOICES(room.slug), room.post)
      const slow = h('input', { type: 'number', id: `${id}-slow`, min: 0, max: 3600, step: 1, value: String(room.slowModeSeconds), required: true }) as HTMLInputElement
      const guests = h('input', { type: 'checkbox', id: `${id}-guests` }) as HTMLInputElement
      guests.checked = room.guestsPost
      const form = h('form', { class: 'stack', 'aria-labelledby': `${id}-title` },
        h('h2', { id: `${id}-title` }, room.archived ? t('ui.rooms.archivedName', { name: room.name }) : room.name, ' ', h('code', {}, room.slug)),
        field(t('ui.rooms.name'), name), field(t('ui.rooms.description'), description),
        field(t('ui.rooms.read'), read), field(t('ui.rooms.post'), post),
        field(t('ui.rooms.slowMode'), slow, t('ui.rooms.slowModeHint')),
        field(t('ui.rooms.guestsPost'), guests, t('ui.rooms.guestsPostHint')),
        h('div', { class: 'row' },
          h('button', { type: 'submit' }, t('ui.rooms.save')),
          // The default room stays first.
          above === undefined || above.id === 1 ? null : h('button', { type: 'button', class: 'secondary', id: `${id}-up`, 'aria-label': t('ui.rooms.upLabel', { name: room.name }), onclick: () => void move(room, above, 'up') }, t('ui.rooms.up')),
          below === undefined || room.id === 1 ? null : h('button', { type: 'button', class: 'secondary', id: `${id}-down`, 'aria-label': t('ui.rooms.downLabel', { name: room.name }), onclick: () => void move(room, below, 'down') }, t('ui.rooms.down')),
          room.id === 1
            ? null
            : room.archived
              ? h('button', { type: 'button', class: 'secondary', id: `${id}-restore`, onclick: () => void change(room, { archived: false }, 'ui.rooms.restored', `${id}-archive`) }, t('ui.rooms.restore'))
              : h('button', { type: 'button', class: 'danger', id: `${id}-archive`, onclick: () => void change(room, { archived: true }, 'ui.rooms.archived', `${id}-restore`) }, t('ui.rooms.archive')))) as HTMLFormElement
      form.addEventListener('submit', event => {
        event.preventDefault()
        void change(room, {
          name: name.value, description: description.value, ...(room.id === 1 ? {} : { read: read.value }), post: post.value, slowModeSeconds: Number(slow.value), guestsPost: guests.checked
        }, 'ui.rooms.saved', `${id}-name`)
      })
      return h('section', { class: 'card', id }, form)
    }
    // A new room: its slug names it in addresses and its own permission nodes, for good.
    const slug = h('input', { type: 'text', id: 'new-room-slug', required: true, maxlength: 32, pattern: '[a-z0-9][a-z0-9\\-]{0,31}', autocomplete: 'off' }) as HTMLInputElement
    const newName = h('input', { type: 'text', id: 'new-room-name', required: true, maxlength: 60 }) as HTMLInputElement
    const newDescription = h('input', { type: 'text', id: 'new-room-description', maxlength: 500 }) as HTMLInputElement
    const newRead = choice('new-room-read', READ_CHOICES('…'), 'everyone')
    const newPost = choice('new-room-post', POST_CHOICES('…'), 'addon.shoutbox.post')
    const newSlow = h('input', { type: 'number', id: 'new-room-slow', min: 0, max: 3600, step: 1, value: '0', required: true }) as HTMLInputElement
    const made = outcome()
    const create = h('form', { class: 'stack card', 'aria-labelledby': 'new-room-title' },
      h('h2', { id: 'new-room-title' }, t('ui.rooms.new')),
      field(t('ui.rooms.slug'), slug, t('ui.rooms.slugHint')), field(t('ui.rooms.name'), newName), field(t('ui.rooms.description'), newDescription),
      field(t('ui.rooms.read'), newRead), field(t('ui.rooms.post'), newPost),
      field(t('ui.rooms.slowMode'), newSlow, t('ui.rooms.slowModeHint')),
      made, h('div', {}, h('button', { type: 'submit' }, t('ui.rooms.create')))) as HTMLFormElement
    // The room's own nodes carry its slug: the choices follow what is typed.
    slug.addEventListener('input', () => {
      for (const [select, choices] of [[newRead, READ_CHOICES], [newPost, POST_CHOICES]] as const) {
        const chosen = select.selectedIndex
        choices(slug.value === '' ? '…' : slug.value).forEach(([node], index) => { select.options[index]!.value = node })
        select.selectedIndex = chosen
      }
    })
    onSubmit(create, made, say, () => panel.api('POST', '/panel/api/shoutbox/rooms', {
      slug: slug.value, name: newName.value, description: newDescription.value, read: newRead.value, post: newPost.value, slowModeSeconds: Number(newSlow.value)
    }), async () => {
      made.ok(t('ui.rooms.created', { name: newName.value }))
      // The form starts over, every field as for a first room: the next room is another.
      slug.value = ''
      newName.value = ''
      newDescription.value = ''
      newRead.selectedIndex = 0
      newPost.selectedIndex = 0
      newSlow.value = '0'
      slug.dispatchEvent(new Event('input'))
      await load()
    })
    root.replaceChildren(heading, h('p', { class: 'hint' }, t('ui.rooms.intro')), result, body, create)
    void load()
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

  /**
   * The review queue: each shout waiting (held, hidden by reports, or reported), what it
   * says, who wrote it and where, why it waits and its reports; Approve, Delete, Dismiss
   * the reports, with a mute of its author if chosen. The focus moves to the next shout
   * as one is decided.
   */
  function reviewPage (root: HTMLElement): void {
    const result = outcome()
    const list = h('ol', { class: 'review-list' })
    const empty = h('p', {}, t('ui.review.empty'))
    const heading = h('h1', { tabindex: -1 }, t('ui.review.title'))
    const when = (ms: number): string => new Date(ms).toLocaleString(panel.locale, { dateStyle: 'medium', timeStyle: 'short' })
    // Rooms by their names, as staff know them (the queue names each shout's room by its slug).
    let roomNames = new Map<string, string>()
    const load = async (focusAt?: number): Promise<void> => {
      const [answer, rooms] = await Promise.all([panel.api('GET', '/panel/api/shoutbox/review'), panel.api('GET', '/panel/api/shoutbox/rooms')])
      if (rooms.ok) roomNames = new Map((rooms.body!.rooms as PanelRoom[]).map(room => [room.slug, room.name]))
      if (!answer.ok) {
        result.error(say(answer))
        return
      }
      const items = answer.body!.items as ReviewItem[]
      list.replaceChildren(...items.map(item))
      list.hidden = items.length === 0
      empty.hidden = items.length !== 0
      if (focusAt !== undefined) ([...list.querySelectorAll<HTMLElement>('h2')][Math.min(focusAt, items.length - 1)] ?? heading).focus()
    }
    const item = (entry: ReviewItem, index: number): HTMLElement => {
      const id = `review-${entry.shout.id}`
      const mute = h('select', { id: `${id}-mute` },
        h('option', { value: '' }, t('ui.review.noMute')),
        ...[[60, 'hour'], [1440, 'day'], [10080, 'week']].map(([minutes, unit]) => h('option', { value: String(minutes) }, t(`ui.review.mute.${unit}`)))) as HTMLSelectElement
      const decide = async (action: 'approve' | 'delete' | 'dismiss'): Promise<void> => {
        const muteMinutes = mute.value === '' ? undefined : Number(mute.value)
        const answer = await panel.api('POST', `/panel/api/shoutbox/review/${entry.shout.id}`, { action, ...(muteMinutes === undefined ? {} : { muteMinutes }) })
        // The queue is read again first: when the outcome is said, the list shown is the one to act on.
        await load(index)
        if (answer.ok || answer.status === 404) result.ok(t(`ui.review.done.${action}`, { username: entry.shout.username }))
        else result.error(say(answer))
      }
      const button = (action: 'approve' | 'delete' | 'dismiss', kind: string): HTMLElement => h('button', {
        type: 'button', class: kind, 'aria-describedby': `${id}-title`, onclick: () => void decide(action)
      }, t(`ui.review.${action}`))
      const why = entry.state === 'reported' || entry.state === 'hidden'
        ? t(`ui.review.state.${entry.state}`, { count: entry.reports.length })
        : t(`ui.review.why.${entry.why}`)
      return h('li', { class: `card review-item ${entry.state}` },
        h('h2', { id: `${id}-title`, tabindex: -1 }, t('ui.review.itemTitle', { username: entry.shout.username, room: roomNames.get(entry.shout.room) ?? entry.shout.room })),
        h('p', { class: 'review-why' }, h('span', { class: `badge ${entry.state}` }, t(`ui.review.badge.${entry.state}`)), ' ', why),
        h('blockquote', { class: 'review-text' }, shoutText(entry.shout.message, panel.locale)),
        pictureGallery(entry.shout.uploads, panel.locale),
        h('p', { class: 'hint' }, when(entry.shout.date)),
        entry.reports.length === 0 ? null : h('ul', { class: 'review-reports', 'aria-label': t('ui.review.reports') }, ...entry.reports.map(report => h('li', {},
          h('strong', {}, report.reporter), ' — ', t(`ui.review.reason.${report.reason}`), report.note === null ? '' : `: “${report.note}”`))),
        h('div', { class: 'review-actions' },
          button('approve', ''), button('delete', 'danger'), entry.state === 'held' ? null : button('dismiss', 'secondary'),
          h('label', { for: `${id}-mute` }, t('ui.review.muteLabel')), mute))
    }
    root.replaceChildren(heading, h('p', { class: 'hint' }, t('ui.review.intro')), result, list, empty)
    void load()
  }

  /**
   * Watched words: a form to add one (the pattern and what it does), and the list, each
   * with Remove. The focus stays in the list as words go.
   */
  function wordsPage (root: HTMLElement): void {
    const result = outcome()
    const listResult = outcome()
    const pattern = h('input', { type: 'text', id: 'word-pattern', required: true, maxlength: 64, autocomplete: 'off' }) as HTMLInputElement
    const actions = (['block', 'censor', 'hold'] as const).map(action => h('label', { class: 'choice' },
      h('input', { type: 'radio', name: 'word-action', value: action, checked: action === 'block' }), ' ',
      h('strong', {}, t(`ui.words.action.${action}`)), ' ', h('span', { class: 'hint' }, t(`ui.words.actionHint.${action}`))))
    const form = h('form', { class: 'stack' },
      field(t('ui.words.pattern'), pattern, t('ui.words.patternHint')),
      h('fieldset', {}, h('legend', {}, t('ui.words.actionLegend')), ...actions),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.words.add')))) as HTMLFormElement
    const chosen = (): string => form.querySelector<HTMLInputElement>('input[name="word-action"]:checked')?.value ?? 'block'
    let added = ''
    const add = async (): Promise<ApiAnswer> => {
      const answer = await panel.api('POST', '/panel/api/shoutbox/words', { pattern: pattern.value, action: chosen() })
      if (answer.ok) added = (answer.body!.word as Word).pattern
      return answer
    }
    onSubmit(form, result, say, add, async () => {
      await load()
      result.ok(t('ui.words.added', { pattern: added }))
      pattern.value = ''
      pattern.focus()
    })
    const table = h('table', { class: 'words' })
    const body = h('tbody', {})
    table.append(h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('ui.words.pattern')), h('th', { scope: 'col' }, t('ui.words.actionLegend')), h('th', { scope: 'col' }, t('ui.words.since')), h('td', {}))), body)
    const empty = h('p', {}, t('ui.words.empty'))
    const count = h('p', { class: 'hint' })
    const heading = h('h1', { tabindex: -1 }, t('ui.words.title'))
    const load = async (focusAfter?: number): Promise<void> => {
      const answer = await panel.api('GET', '/panel/api/shoutbox/words')
      if (!answer.ok) {
        listResult.error(say(answer))
        return
      }
      const words = answer.body!.words as Word[]
      body.replaceChildren(...words.map(row))
      table.hidden = words.length === 0
      empty.hidden = words.length !== 0
      count.textContent = t('ui.words.count', { count: words.length })
      if (focusAfter !== undefined) {
        const buttons = [...body.querySelectorAll<HTMLButtonElement>('button')]
        ;(buttons[Math.min(focusAfter, buttons.length - 1)] ?? heading).focus()
      }
    }
    const row = (word: Word, index: number): HTMLElement => {
      const remove = async (): Promise<void> => {
        const answer = await panel.api('DELETE', `/panel/api/shoutbox/words/${word.id}`)
        await load(index)
        if (answer.ok || answer.status === 404) listResult.ok(t('ui.words.removed', { pattern: word.pattern }))
        else listResult.error(say(answer))
      }
      return h('tr', {},
        h('th', { scope: 'row', 'data-label': t('ui.words.pattern') }, h('code', {}, word.pattern)),
        h('td', { 'data-label': t('ui.words.actionLegend') }, h('span', { class: `word-action ${word.action}` }, t(`ui.words.action.${word.action}`))),
        h('td', { 'data-label': t('ui.words.since') }, relativeTime(word.createdAt, panel.locale)),
        h('td', {}, h('button', { type: 'button', class: 'secondary', 'aria-label': t('ui.words.removeLabel', { pattern: word.pattern }), onclick: () => void remove() }, t('ui.words.remove'))))
    }
    root.replaceChildren(heading, h('p', { class: 'hint' }, t('ui.words.intro')),
      h('div', { class: 'card' }, h('h2', {}, t('ui.words.addTitle')), form),
      h('div', { class: 'card' }, h('h2', {}, t('ui.words.listTitle')), count, listResult, table, empty))
    void load()
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
    const reactions = h('input', { type: 'text', id: 'reactions', required: true, autocomplete: 'off' }) as HTMLInputElement
    const directMessages = h('input', { type: 'checkbox', id: 'direct-messages' }) as HTMLInputElement
    const moderation = {
      hideAfterReports: h('input', { type: 'number', id: 'hide-after-reports', min: 0, max: 100, step: 1, required: true }) as HTMLInputElement,
      reportMinAccountAgeHours: h('input', { type: 'number', id: 'report-min-account-age', min: 0, max: 8760, step: 1, required: true }) as HTMLInputElement,
      holdFirstShouts: h('input', { type: 'number', id: 'hold-first-shouts', min: 0, max: 10, step: 1, required: true }) as HTMLInputElement,
      autoMuteAfter: h('input', { type: 'number', id: 'auto-mute-after', min: 0, max: 1000, step: 1, required: true }) as HTMLInputElement,
      autoMuteMinutes: h('input', { type: 'number', id: 'auto-mute-minutes', min: 1, max: 10080, step: 1, required: true }) as HTMLInputElement
    }
    const guestProofCost = h('input', { type: 'number', id: 'guest-proof-cost', min: 1000, max: 10_000_000, step: 1, required: true }) as HTMLInputElement
    const holdGuestShouts = h('input', { type: 'checkbox', id: 'hold-guest-shouts' }) as HTMLInputElement
    const maxUploadKiB = h('input', { type: 'number', id: 'max-upload-kib', min: 1, max: 20480, step: 1, required: true }) as HTMLInputElement
    const holdUploads = h('input', { type: 'checkbox', id: 'hold-uploads' }) as HTMLInputElement
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
      h('fieldset', { class: 'stack' }, h('legend', {}, t('ui.settings.conversation')),
        field(t('ui.settings.reactions'), reactions, t('ui.settings.reactionsHint')),
        field(t('ui.settings.directMessages'), directMessages, t('ui.settings.directMessagesHint'))),
      h('fieldset', { class: 'stack' }, h('legend', {}, t('ui.settings.moderation')),
        ...Object.entries(moderation).map(([key, input]) => field(t(`ui.settings.${key}`), input, t(`ui.settings.${key}Hint`)))),
      h('fieldset', { class: 'stack' }, h('legend', {}, t('ui.settings.guests')),
        field(t('ui.settings.guestProofCost'), guestProofCost, t('ui.settings.guestProofCostHint')),
        field(t('ui.settings.holdGuestShouts'), holdGuestShouts, t('ui.settings.holdGuestShoutsHint'))),
      h('fieldset', { class: 'stack' }, h('legend', {}, t('ui.settings.pictures')),
        field(t('ui.settings.maxUploadKiB'), maxUploadKiB, t('ui.settings.maxUploadKiBHint')),
        field(t('ui.settings.holdUploads'), holdUploads, t('ui.settings.holdUploadsHint'))),
      result,
      h('div', {}, h('button', { type: 'submit' }, t('ui.settings.save')))) as HTMLFormElement
    onSubmit(form, result, say, () => panel.api('PUT', '/panel/api/shoutbox/config', {
      maxShouts: maxShouts.value === '' ? null : Number(maxShouts.value), maxMessageLength: Number(maxMessageLength.value),
      ...Object.fromEntries(Object.entries(members).map(([key, input]) => [key, Number(input.value)])),
      maxPinned: Number(maxPinned.value),
      keepDays: keepDays.value === '' ? null : Number(keepDays.value),
      reactions: reactions.value.split(/\s+/u).filter(emoji => emoji !== ''),
      directMessages: directMessages.checked,
      ...Object.fromEntries(Object.entries(moderation).map(([key, input]) => [key, Number(input.value)])),
      guestProofCost: Number(guestProofCost.value),
      holdGuestShouts: holdGuestShouts.checked,
      maxUploadBytes: Number(maxUploadKiB.value) * 1024,
      holdUploads: holdUploads.checked
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
      reactions.value = (answer.body!.reactions as string[]).join(' ')
      directMessages.checked = answer.body!.directMessages === true
      for (const [key, input] of Object.entries(moderation)) input.value = String(answer.body![key])
      guestProofCost.value = String(answer.body!.guestProofCost)
      holdGuestShouts.checked = answer.body!.holdGuestShouts === true
      maxUploadKiB.value = String(Math.round((answer.body!.maxUploadBytes as number) / 1024))
      holdUploads.checked = answer.body!.holdUploads === true
    })
    void panel.api('GET', '/panel/api/shoutbox/overview').then(answer => {
      manyShouts = answer.ok && answer.body!.manyShouts === true
      warn()
    })
  }
}
