import { plainExcerpt } from '../../../sdk/rich-text.js'
import { h } from '../../../sdk/ui.js'
import { permalinkOf } from './shout-view.js'
import type { shoutboxStrings } from '../strings.js'

/** A notification as `GET /api/notifications` answers it (the host's; a mention's data is the shoutbox's). */
interface Notification {
  readonly id: number
  readonly kind: string
  readonly data: Record<string, unknown>
  readonly createdAt: number
  readonly read: boolean
}

/** The member's choices for what else a notification does (the host's `/api/users/me/preferences`). */
interface Alerts { readonly sound: boolean, readonly desktopNotifications: boolean }

/** How many the list shows. */
const SHOWN = 20

/**
 * The widget's bell, for a signed-in reader: how many notifications are unread (a badge),
 * and, opened, the newest of them — each a link to what it is about (a mention: the
 * shout's page) — with "Mark all read". It hears the reader's own notification stream
 * (`/api/notifications/stream`), so a mention arrives while the page is open; with the
 * reader's preferences on, it also chimes and shows a desktop notification. The preferences
 * are read when the first notification comes, and followed as the site's account menu saves
 * them (its `site:preferences` event).
 */
export class NotificationBell {
  readonly element: HTMLElement
  private readonly button: HTMLButtonElement
  private readonly badge: HTMLElement
  private readonly panel: HTMLElement
  private readonly list: HTMLElement
  private stream: EventSource | undefined
  private unread = 0
  private notifications: Notification[] = []
  private loaded = false
  private alerts: Alerts | undefined

  /** A shout's first words as a notification quotes them: no markers, no spoiler's words. */
  private readonly quoted = (excerpt: string): string => plainExcerpt(excerpt, { spoiler: this.t('shout.spoiler') })

  /** `openConversation`: where a direct message's notification leads (the widget's Messages); none: it is only read. */
  constructor (private readonly t: ReturnType<typeof shoutboxStrings>, private readonly roomName: (slug: string) => string, private readonly openConversation?: (by: string) => void) {
    this.badge = h('span', { class: 'shoutbox-bell-count', 'aria-hidden': 'true', hidden: true })
    this.button = h('button', {
      type: 'button', class: 'shoutbox-bell', 'aria-expanded': 'false', 'aria-controls': 'shoutbox-notifications',
      onclick: () => { this.toggle() }
    }, h('span', { 'aria-hidden': 'true' }, '🔔'), this.badge) as HTMLButtonElement
    this.list = h('ul', { class: 'shoutbox-notification-list' })
    this.panel = h('div', { class: 'shoutbox-notifications', id: 'shoutbox-notifications', role: 'region', 'aria-label': t('notifications.title'), hidden: true },
      h('div', { class: 'shoutbox-row' }, h('strong', {}, t('notifications.title')),
        h('button', { type: 'button', class: 'shoutbox-action', onclick: () => void this.markAll() }, t('notifications.markAll'))),
      this.list)
    this.element = h('div', { class: 'shoutbox-bell-box', hidden: true }, this.button, this.panel)
    // Escape, on the bell or in the list, closes it and goes back to the bell.
    this.element.addEventListener('keydown', event => {
      if (event.key !== 'Escape' || this.panel.hidden) return
      event.preventDefault()
      this.toggle(false)
      this.button.focus()
    })
    this.drawCount()
    document.addEventListener('site:preferences', event => { this.alerts = (event as CustomEvent<Alerts>).detail })
  }

  /** Signed in: the bell shows and hears the reader's stream; signed out: it goes. */
  signedIn (yes: boolean): void {
    this.stream?.close()
    this.stream = undefined
    this.element.hidden = !yes
    this.notifications = []
    this.loaded = false
    this.alerts = undefined
    this.toggle(false)
    if (!yes || !('EventSource' in window)) return
    const stream = new EventSource('/api/notifications/stream')
    this.stream = stream
    const on = (kind: string, handle: (data: Record<string, unknown>) => void): void => {
      stream.addEventListener(kind, event => handle(JSON.parse((event as MessageEvent<string>).data) as Record<string, unknown>))
    }
    on('ready', data => {
      this.setUnread(data.unread as number)
      if (!this.panel.hidden) void this.load()
      else this.loaded = false
    })
    on('notification', data => {
      this.notifications = [data.notification as Notification, ...this.notifications].slice(0, SHOWN)
      this.setUnread(data.unread as number)
      void this.alert(data.notification as Notification)
    })
    on('notifications-removed', data => {
      const gone = new Set(data.ids as number[])
      this.notifications = this.notifications.filter(notification => !gone.has(notification.id))
      this.setUnread(data.unread as number)
    })
    on('notifications-read', data => {
      if (data.unread === 0) this.notifications = this.notifications.map(notification => ({ ...notification, read: true }))
      this.setUnread(data.unread as number)
    })
  }

  /** A sound and a desktop notification, as the reader chose. */
  private async alert (notification: Notification): Promise<void> {
    if (this.alerts === undefined) {
      const response = await fetch('/api/users/me/preferences', { credentials: 'same-origin' }).catch(() => undefined)
      if (response?.ok !== true) return
      this.alerts = (await response.json() as { preferences: Alerts }).preferences
    }
    if (this.alerts.sound) chime()
    if (this.alerts.desktopNotifications && 'Notification' in window && Notification.permission === 'granted') {
      const { shoutId, excerpt } = notification.data as { shoutId: number, excerpt: string }
      const shown = new window.Notification(this.sentence(notification), { body: this.quoted(excerpt), tag: `notification-${notification.id}` })
      shown.onclick = () => {
        window.focus()
        void this.markRead([notification.id])
        location.assign(permalinkOf(shoutId))
      }
    }
  }

  private setUnread (count: number): void {
    this.unread = count
    this.drawCount()
    this.drawList()
  }

  private drawCount (): void {
    const { t } = this
    this.badge.hidden = this.unread === 0
    this.badge.textContent = this.unread > 99 ? '99+' : String(this.unread)
    this.button.setAttribute('aria-label', this.unread === 0 ? t('notifications.title') : `${t('notifications.title')}, ${t('notifications.unread', { count: this.unread })}`)
  }

  private drawList (): void {
    const { t } = this
    if (this.panel.hidden) return
    if (this.notifications.length === 0) {
      this.list.replaceChildren(h('li', { class: 'empty' }, this.loaded ? t('notifications.empty') : '…'))
      return
    }
    this.list.replaceChildren(...this.notifications.map(notification => {
      const { shoutId, excerpt } = notification.data as { shoutId: number, excerpt: string }
      const markRead = (): void => { if (!notification.read) void this.markRead([notification.id]) }
      const what = h('span', { class: 'what' }, this.sentence(notification))
      // A report's outcome links to the shout while it is on the board; a removed one has no page.
      const gone = notification.kind === 'report-resolved' && notification.data.outcome === 'removed'
      // A direct message has no page: it opens its conversation.
      if (notification.kind === 'direct') {
        return h('li', { class: notification.read ? 'read' : 'unread' }, h('button', {
          type: 'button', class: 'shoutbox-notification-gone',
          onclick: () => { markRead(); this.toggle(false); this.openConversation?.(String(notification.data.by)) }
        }, what, ...(typeof excerpt === 'string' ? [' ', h('q', {}, excerpt)] : [])))
      }
      return h('li', { class: notification.read ? 'read' : 'unread' }, gone
        ? h('button', { type: 'button', class: 'shoutbox-notification-gone', onclick: () => { markRead(); this.drawList() } }, what, ' ', h('q', {}, this.quoted(excerpt)))
        : h('a', { href: permalinkOf(shoutId), onclick: markRead }, what, ' ', h('q', {}, this.quoted(excerpt))))
    }))
  }

  /** What a notification says: a mention, or a report's outcome. */
  private sentence (notification: Notification): string {
    const { t } = this
    if (notification.kind === 'report-resolved') return t(`notifications.reportResolved.${String(notification.data.outcome)}`)
    if (notification.kind === 'direct') return t('notifications.direct', { by: String(notification.data.by) })
    const { room, by } = notification.data as { room: string, by: string }
    return t('notifications.mention', { by, room: this.roomName(room) })
  }

  private toggle (open = this.panel.hidden): void {
    this.panel.hidden = !open
    this.button.setAttribute('aria-expanded', String(open))
    if (open && !this.loaded) void this.load()
    this.drawList()
  }

  private async load (): Promise<void> {
    const response = await fetch(`/api/notifications?limit=${SHOWN}`, { credentials: 'same-origin' }).catch(() => undefined)
    if (response?.ok !== true) return
    const body = await response.json() as { notifications: Notification[], unread: number }
    this.notifications = body.notifications
    this.loaded = true
    this.setUnread(body.unread)
  }

  private async markRead (ids: number[]): Promise<void> {
    await this.post({ ids })
  }

  private async markAll (): Promise<void> {
    await this.post({ all: true })
    this.notifications = this.notifications.map(notification => ({ ...notification, read: true }))
    this.drawList()
  }

  private async post (body: Record<string, unknown>): Promise<void> {
    const response = await fetch('/api/notifications/read', {
      // keepalive: a click on a notification's link marks it read as the page goes.
      method: 'POST', credentials: 'same-origin', keepalive: true, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
    }).catch(() => undefined)
    if (response?.ok === true) this.setUnread((await response.json() as { unread: number }).unread)
  }
}

let audio: AudioContext | undefined

/** Two soft notes, made on the spot (no sound file to fetch). A browser that has not let the page play sound yet stays quiet. */
function chime (): void {
  try {
    audio ??= new AudioContext()
    const start = audio.currentTime
    for (const [offset, frequency] of [[0, 880], [0.12, 1320]] as const) {
      const tone = audio.createOscillator()
      const volume = audio.createGain()
      tone.frequency.value = frequency
      volume.gain.setValueAtTime(0.0001, start + offset)
      volume.gain.exponentialRampToValueAtTime(0.15, start + offset + 0.02)
      volume.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.35)
      tone.connect(volume).connect(audio.destination)
      tone.start(start + offset)
      tone.stop(start + offset + 0.4)
    }
  } catch {
    // No Web Audio here: the badge still counts.
  }
}
