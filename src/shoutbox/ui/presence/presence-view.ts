import { h } from '../../../sdk/ui.js'

interface Here { readonly members: ReadonlyArray<{ readonly username: string }>, readonly guests: number }

/**
 * "N here" for the room shown: a button (beside the title) that shows who is here by name
 * on demand, and the count of the others. Follows the stream's `presence` events; asks
 * once when a room is shown (events come only when something changed).
 */
export class PresenceView {
  readonly element: HTMLElement
  private readonly button: HTMLButtonElement
  private readonly names: HTMLElement
  private room = ''
  private here: Here = { members: [], guests: 0 }

  constructor (private readonly t: (key: string, values?: Record<string, unknown>) => string) {
    this.button = h('button', { type: 'button', class: 'shoutbox-here-button', 'aria-expanded': 'false', 'aria-controls': 'shoutbox-here-names' }) as HTMLButtonElement
    this.names = h('div', { class: 'shoutbox-here-names', id: 'shoutbox-here-names', hidden: true })
    this.button.addEventListener('click', () => this.toggle())
    this.element = h('div', { class: 'shoutbox-here' }, this.button, this.names)
    // Escape closes the names, from the button or from within them.
    this.element.addEventListener('keydown', event => {
      if (event.key !== 'Escape' || this.names.hidden) return
      event.preventDefault()
      this.toggle(false)
      this.button.focus()
    })
    this.draw()
  }

  /** The room shown is now `room`: ask who is there. */
  async show (room: string): Promise<void> {
    this.room = room
    try {
      const response = await fetch(`/api/shoutbox/rooms/${encodeURIComponent(room)}/presence`, { credentials: 'same-origin' })
      if (response.ok && this.room === room) this.learn(room, await response.json() as Here)
    } catch {
      // no count until the stream says
    }
  }

  /** A `presence` event, of the room shown or another. */
  learn (room: string, here: Here): void {
    if (room !== this.room) return
    this.here = here
    this.draw()
  }

  private toggle (open = this.names.hidden): void {
    this.names.hidden = !open
    this.button.setAttribute('aria-expanded', String(open))
  }

  private draw (): void {
    const count = this.here.members.length + this.here.guests
    this.button.textContent = this.t('widget.here', { count })
    this.button.title = this.t('widget.hereTitle')
    const named = this.here.members.length === 0
      ? [h('p', {}, this.t('widget.hereNobody'))]
      : [h('ul', {}, ...this.here.members.map(member => h('li', {}, member.username)))]
    const others = this.here.guests > 0 ? [h('p', {}, this.t('widget.hereGuests', { count: this.here.guests }))] : []
    this.names.replaceChildren(h('p', { class: 'label' }, this.t('widget.hereTitle')), ...named, ...others)
  }
}
