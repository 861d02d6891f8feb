import { h } from '../../sdk/ui.js'
import type { LiveShouts } from './shared/live-shouts.js'
import { shoutboxStrings } from './strings.js'

/**
 * The end of the widget's list: older shouts on demand, a page at a time from the
 * archive (`before=` the oldest held). A button the keyboard reaches, and the same load
 * when the list is scrolled to its end (the button comes into view). A press keeps the
 * focus on the button for the next page; at the last page, the focus goes to the oldest
 * shout. `announce` says how many came.
 */
export class OlderShouts {
  readonly element: HTMLElement
  private readonly button: HTMLButtonElement
  private readonly t: ReturnType<typeof shoutboxStrings>
  private loading: Promise<number> | undefined

  constructor (private readonly live: LiveShouts, scroller: HTMLElement, locale: string, private readonly announce: (text: string) => void) {
    const t = shoutboxStrings(locale)
    this.t = t
    this.button = h('button', { type: 'button', class: 'shoutbox-action shoutbox-older-button', onclick: () => void this.load(true) }, t('widget.older')) as HTMLButtonElement
    this.element = h('p', { class: 'shoutbox-older', hidden: true }, this.button)
    if ('IntersectionObserver' in window) {
      new IntersectionObserver(entries => {
        // Only once scrolled by the reader: a list not (yet) in its box, before its stylesheet, shows its end at once.
        if (entries.some(entry => entry.isIntersecting) && scroller.scrollTop > 0) void this.load(false)
      }, { root: scroller, rootMargin: '0px 0px 80px 0px' }).observe(this.button)
    }
  }

  /** Shown while the room has older shouts than those held (call after every change). */
  update (): void {
    this.element.hidden = !this.live.loaded || this.live.older === null
  }

  /** The next older page; `pressed`: asked for with the button (how many came is said, also of a load already under way). */
  async load (pressed: boolean): Promise<void> {
    if (this.element.hidden && this.loading === undefined) return
    this.loading ??= this.next()
    const added = await this.loading
    if (!pressed) return
    this.announce(added > 0 ? this.t('widget.olderLoaded', { count: added }) : this.t('widget.noOlder'))
    if (this.element.hidden) {
      // The last page: the button is gone, the oldest shout takes the focus.
      const items = this.element.parentElement?.querySelectorAll<HTMLElement>('li[data-id]')
      items?.[items.length - 1]?.focus()
    }
  }

  /** Reads the next page; how many shouts came. */
  private async next (): Promise<number> {
    const before = this.live.shouts.length
    // Not `disabled`: a pressed button keeps the focus while it works.
    this.button.setAttribute('aria-disabled', 'true')
    this.button.textContent = this.t('widget.loadingOlder')
    try {
      await this.live.more()
    } finally {
      this.loading = undefined
      this.button.removeAttribute('aria-disabled')
      this.button.textContent = this.t('widget.older')
      this.update()
    }
    return this.live.shouts.length - before
  }
}
