import { h } from '../../../sdk/ui.js'
import type { shoutboxStrings } from '../strings.js'

/* The widget's Messages: a signed-in member's conversations of two — the list with unread counts, one conversation, and writing. */

interface Reaction { readonly emoji: string, readonly count: number, readonly mine?: boolean }
interface Message {
  readonly id: number
  message: string
  readonly username: string
  readonly date: number
  readonly replyTo: { readonly id: number, readonly username?: string, readonly excerpt?: string, readonly deleted?: true } | null
  reactions: Reaction[]
}
interface Conversation {
  readonly id: number
  readonly with: { readonly username: string }
  readonly last: { readonly id: number, readonly username: string, readonly message: string, readonly date: number } | null
  readonly unread: number
}
interface Answer { readonly ok: boolean, readonly status: number, readonly body: Record<string, unknown> | undefined, readonly retryAfter: string | null }

/** What the view needs from the widget around it. */
export interface MessagesHost {
  readonly t: ReturnType<typeof shoutboxStrings>
  readonly locale: string
  /** The site's reactions (the board's setting). */
  readonly reactions: () => readonly string[]
  readonly announce: (text: string) => void
  /** The text an error answer is shown as. */
  readonly errorText: (answer: Answer) => string
}

async function call (method: string, path: string, body?: unknown): Promise<Answer> {
  try {
    const response = await fetch(path, {
      method, credentials: 'same-origin', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    })
    return { ok: response.ok, status: response.status, body: await response.json().catch(() => undefined) as Record<string, unknown> | undefined, retryAfter: response.headers.get('retry-after') }
  } catch {
    return { ok: false, status: 0, body: undefined, retryAfter: null }
  }
}

/**
 * A button beside the title ("Messages", with the unread count) that opens the member's
 * conversations in place of the room; a conversation opened shows its messages, oldest
 * first, each with Reply and the site's reactions as buttons, and a composer (Enter sends,
 * Shift+Enter a new line, Escape stops replying). Live: the widget hands it the stream's
 * events of conversations (`heard`).
 */
export class DirectMessages {
  readonly button: HTMLButtonElement
  readonly element: HTMLElement
  private readonly body: HTMLElement
  private conversations: Conversation[] = []
  private open: { id: number, username: string, messages: Message[] } | null = null
  private replying: Message | null = null
  private member = false
  private listing: ReturnType<typeof setTimeout> | undefined

  constructor (private readonly host: MessagesHost, private readonly room: HTMLElement) {
    const { t } = host
    this.button = h('button', {
      type: 'button', class: 'secondary shoutbox-direct-toggle', 'aria-expanded': 'false', 'aria-controls': 'shoutbox-direct', hidden: true,
      onclick: () => { this.show(this.element.hidden) }
    }, t('direct.title')) as HTMLButtonElement
    this.body = h('div', {})
    this.element = h('section', { class: 'shoutbox-direct', id: 'shoutbox-direct', 'aria-labelledby': 'shoutbox-direct-title', hidden: true },
      h('h3', { id: 'shoutbox-direct-title' }, t('direct.title')), this.body)
  }

  /** Signed in or out: the button shows for a member, and their conversations are read. */
  signedIn (member: boolean): void {
    this.member = member
    this.button.hidden = !member
    if (!member) this.show(false)
    else void this.loadList()
  }

  /** Closes the view (another room is shown). */
  close (): void {
    if (!this.element.hidden) this.show(false)
  }

  /** Opens the view to write to `username`: their conversation when there is one, else a new message to them. */
  async writeTo (username: string): Promise<void> {
    this.show(true, false)
    await this.loadList()
    const there = this.conversations.find(each => each.with.username.toLowerCase() === username.toLowerCase())
    if (there !== undefined) await this.openConversation(there.id, there.with.username)
    else this.drawList(username)
  }

  /** An event of the stream about a conversation of the reader's (`room` is `~` and its id). */
  heard (kind: string, data: { room: string, id: number, reactions?: Reaction[], message?: string }): void {
    const id = Number(data.room.slice(1))
    const open = this.open
    if (open !== null && open.id === id && !this.element.hidden) {
      const known = open.messages.find(each => each.id === data.id)
      // The stream's shouts carry no reactions: a new one has none.
      if (kind === 'shout-created' && known === undefined) open.messages.push({ ...data as unknown as Message, reactions: [] })
      else if (kind === 'shout-deleted') open.messages = open.messages.filter(each => each.id !== data.id)
      else if (kind === 'shout-edited' && known !== undefined && data.message !== undefined) known.message = data.message
      else if (kind === 'shout-reactions' && known !== undefined && data.reactions !== undefined) {
        const mine = new Set(known.reactions.filter(each => each.mine === true).map(each => each.emoji))
        known.reactions = data.reactions.map(each => ({ ...each, mine: mine.has(each.emoji) }))
      }
      this.drawMessages()
      if (kind === 'shout-created') void this.markRead()
      return
    }
    // Counted again a moment later, once for a burst.
    clearTimeout(this.listing)
    this.listing = setTimeout(() => { void this.loadList() }, 300)
  }

  private show (open: boolean, list = true): void {
    this.element.hidden = !open
    this.room.hidden = open
    this.button.setAttribute('aria-expanded', String(open))
    if (!open) this.open = null
    if (open && list) void this.loadList().then(() => { this.drawList(); this.focusFirst() })
  }

  private focusFirst (): void {
    this.body.querySelector<HTMLElement>('input, textarea, button')?.focus()
  }

  private async loadList (): Promise<void> {
    if (!this.member) return
    const answer = await call('GET', '/api/shoutbox/direct')
    if (!answer.ok) return
    this.conversations = answer.body!.conversations as Conversation[]
    const unread = this.conversations.reduce((sum, each) => sum + each.unread, 0)
    const { t } = this.host
    this.button.textContent = unread === 0 ? t('direct.title') : `${t('direct.title')} (${unread})`
    this.button.setAttribute('aria-label', unread === 0 ? t('direct.title') : `${t('direct.title')}, ${t('direct.unread', { count: unread })}`)
    if (!this.element.hidden && this.open === null && this.body.querySelector('.shoutbox-direct-list') !== null) this.drawList()
  }

  /** The list of conversations, and a form to write to anyone (`to` filled in when given). */
  private drawList (to = ''): void {
    const { t } = this.host
    this.open = null
    const items = this.conversations.map(each => h('li', {},
      h('button', {
        type: 'button', class: 'shoutbox-action shoutbox-direct-open',
        onclick: () => void this.openConversation(each.id, each.with.username)
      }, h('strong', {}, each.with.username), ...(each.unread > 0
        ? [h('span', { class: 'shoutbox-direct-count', 'aria-hidden': 'true' }, String(each.unread)), h('span', { class: 'shoutbox-sr' }, `, ${t('direct.unread', { count: each.unread })}`)]
        : [])),
      each.last === null ? '' : h('p', { class: 'shoutbox-direct-last' }, `${each.last.username}: ${each.last.message.slice(0, 80)}`)))
    const recipient = h('input', { type: 'text', id: 'shoutbox-direct-to', autocomplete: 'off', required: true, value: to }) as HTMLInputElement
    const form = this.composer(async message => await call('POST', `/api/shoutbox/direct/${encodeURIComponent(recipient.value.trim())}`, { message }), async answer => {
      const written = answer.body as { conversation: number }
      await this.loadList()
      await this.openConversation(written.conversation, recipient.value.trim())
    })
    form.prepend(h('label', { for: 'shoutbox-direct-to' }, t('direct.to')), recipient)
    this.body.replaceChildren(
      h('h4', {}, t('direct.new')), form,
      h('ul', { class: 'shoutbox-direct-list', 'aria-label': t('direct.title') }, ...(items.length === 0 ? [h('li', { class: 'empty' }, t('direct.empty'))] : items)),
      this.acceptance())
    if (to !== '') form.querySelector('textarea')?.focus()
  }

  /** Who may write to the member: everyone, or no one (their preference, saved as it is chosen). */
  private acceptance (): HTMLElement {
    const { t } = this.host
    const choice = h('select', { id: 'shoutbox-direct-accept', disabled: true },
      ...['everyone', 'nobody'].map(value => h('option', { value }, t(`direct.accept.${value}`)))) as HTMLSelectElement
    void call('GET', '/api/shoutbox/direct/preferences').then(answer => {
      if (!answer.ok) return
      choice.value = String(answer.body!.acceptDirectMessages)
      choice.disabled = false
    })
    choice.addEventListener('change', () => {
      void call('PUT', '/api/shoutbox/direct/preferences', { acceptDirectMessages: choice.value }).then(answer => {
        this.host.announce(answer.ok ? t('direct.acceptSaved') : this.host.errorText(answer))
      })
    })
    return h('p', { class: 'shoutbox-direct-accept' }, h('label', { for: 'shoutbox-direct-accept' }, t('direct.accept')), ' ', choice)
  }

  private async openConversation (id: number, username: string): Promise<void> {
    const answer = await call('GET', `/api/shoutbox/direct/${id}/shouts?limit=50`)
    if (!answer.ok) return
    this.open = { id, username, messages: (answer.body!.shouts as Message[]).reverse() }
    this.replying = null
    const { t } = this.host
    const list = h('ol', { class: 'shoutbox-direct-messages', 'aria-label': t('direct.with', { username }) })
    const form = this.composer(async message => await call('POST', `/api/shoutbox/direct/${encodeURIComponent(username)}`, { message, replyTo: this.replying?.id ?? null }), async answer => {
      const shout = (answer.body as { shout: Message }).shout
      if (this.open !== null && !this.open.messages.some(each => each.id === shout.id)) this.open.messages.push(shout)
      this.reply(null)
      this.drawMessages()
      void this.markRead()
    })
    form.prepend(h('div', { class: 'shoutbox-replying', id: 'shoutbox-direct-replying', hidden: true }))
    this.body.replaceChildren(
      h('h4', {}, t('direct.with', { username })),
      h('button', { type: 'button', class: 'secondary', onclick: () => { this.drawList(); this.focusFirst() } }, t('direct.back')),
      list, form)
    this.drawMessages()
    form.querySelector('textarea')?.focus()
    void this.markRead()
  }

  private async markRead (): Promise<void> {
    const last = this.open?.messages.at(-1)
    if (this.open === null || last === undefined) return
    await call('PUT', `/api/shoutbox/direct/${this.open.id}/read`, { lastReadId: last.id })
    await this.loadList()
  }

  private drawMessages (): void {
    const list = this.body.querySelector('.shoutbox-direct-messages')
    if (list === null || this.open === null) return
    const { t, locale } = this.host
    const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.key : undefined
    list.replaceChildren(...(this.open.messages.length === 0
      ? [h('li', { class: 'empty' }, t('direct.noMessages'))]
      : this.open.messages.map(message => h('li', { 'data-id': String(message.id) },
        message.replyTo === null
          ? ''
          : h('p', { class: 'quote' }, message.replyTo.deleted === true ? t('shout.replyToDeleted') : `${t('shout.replyTo', { username: message.replyTo.username ?? '' })}: `, message.replyTo.deleted === true ? '' : h('q', {}, message.replyTo.excerpt ?? '')),
        h('p', { class: 'meta' }, h('span', { class: 'author' }, message.username), ' · ', new Date(message.date).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' })),
        h('p', { class: 'text' }, message.message),
        h('div', { class: 'shoutbox-actions' },
          ...this.host.reactions().map(emoji => {
            const reaction = message.reactions.find(each => each.emoji === emoji)
            const mine = reaction?.mine === true
            return h('button', {
              type: 'button', class: 'shoutbox-reaction', 'data-key': `${message.id}-${emoji}`, 'aria-pressed': String(mine),
              // The name holds what is shown (the emoji and its count).
              'aria-label': t(mine ? 'widget.takeBack' : 'widget.reactWith', { emoji }) + (reaction === undefined ? '' : ` ${reaction.count}`),
              onclick: () => void this.react(message, emoji, !mine)
            }, reaction === undefined ? emoji : `${emoji} ${reaction.count}`)
          }),
          h('button', {
            type: 'button', class: 'shoutbox-action', 'data-key': `${message.id}-reply`,
            'aria-label': `${t('widget.reply')} — ${message.username}: ${message.message.slice(0, 60)}`,
            onclick: () => this.reply(message)
          }, t('widget.reply'))))))
    )
    if (focused !== undefined) list.querySelector<HTMLElement>(`[data-key="${focused}"]`)?.focus()
  }

  private async react (message: Message, emoji: string, on: boolean): Promise<void> {
    const answer = await call(on ? 'PUT' : 'DELETE', `/api/shoutbox/shouts/${message.id}/reactions/${encodeURIComponent(emoji)}`)
    if (!answer.ok) {
      this.host.announce(this.host.errorText(answer))
      return
    }
    message.reactions = answer.body!.reactions as Reaction[]
    this.drawMessages()
  }

  private reply (message: Message | null): void {
    this.replying = message
    const note = this.body.querySelector<HTMLElement>('#shoutbox-direct-replying')
    const area = this.body.querySelector<HTMLTextAreaElement>('.shoutbox-direct-compose textarea')
    if (note === null || area === null) return
    const { t } = this.host
    note.hidden = message === null
    note.replaceChildren(...(message === null
      ? []
      : [h('span', {}, t('widget.replyingTo', { username: message.username })), ' ',
          h('button', { type: 'button', class: 'secondary', onclick: () => { this.reply(null); area.focus() } }, t('widget.cancelReply'))]))
    if (message === null) area.removeAttribute('aria-describedby')
    else {
      area.setAttribute('aria-describedby', 'shoutbox-direct-replying')
      area.focus()
    }
  }

  /** A form of a message and Send: `send` it, then `done` with the answer; a refusal is shown under it. */
  private composer (send: (message: string) => Promise<Answer>, done: (answer: Answer) => Promise<void>): HTMLFormElement {
    const { t } = this.host
    const area = h('textarea', { id: 'shoutbox-direct-message', rows: 2, required: true }) as HTMLTextAreaElement
    const problem = h('p', { class: 'shoutbox-error', role: 'alert' })
    const form = h('form', { class: 'shoutbox-direct-compose' },
      h('label', { for: 'shoutbox-direct-message' }, t('direct.message')), area, problem,
      h('button', { type: 'submit' }, t('direct.send'))) as HTMLFormElement
    form.addEventListener('submit', event => {
      event.preventDefault()
      const message = area.value
      if (message.trim() === '') return
      void send(message).then(async answer => {
        if (!answer.ok) {
          problem.textContent = answer.status === 403 ? t('direct.refused') : this.host.errorText(answer)
          return
        }
        problem.textContent = ''
        area.value = ''
        this.host.announce(t('direct.sent'))
        await done(answer)
      })
    })
    area.addEventListener('keydown', event => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault()
        form.requestSubmit()
      } else if (event.key === 'Escape' && this.replying !== null) {
        event.preventDefault()
        this.reply(null)
      }
    })
    return form
  }
}
