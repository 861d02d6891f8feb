import { h } from '../../../sdk/ui.js'
import type { LiveShouts } from './live-shouts.js'
import { shoutboxStrings } from '../strings.js'

/**
 * The end of the widget's list: older shouts on demand, a page at a time from the
 * archive (`before=` the oldest held). A button the keyboard reaches, and the same load
 * when the list is scrolled to its end (the button comes into view, not by the keyboard's
 * focus: that reader presses it). A press moves the focus to the first shout it brought.
 * `announce` says how many came.
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
        // Only once scrolled by the reader (a list not yet in its box, before its stylesheet,
        // shows its end at once), and not when the keyboard's focus brought the button into
        // view: that reader presses it.
        if (entries.some(entry => entry.isIntersecting) && scroller.scrollTop > 0 && document.activeElement !== this.button) void this.load(false)
      }, { root: scroller, rootMargin: '0px 0px 80px 0px' }).observe(this.button)
    }
  }

  /** Shown while the room has older shouts than those held (call after every change). */
  update (): void {
    this.element.hidden = !this.live.loaded || this.live.older === null
  }

  /**
   * The next older page; `pressed`: asked for with the button — how many came is said (of
   * a load already under way too), and the focus goes to the first of them (to read on;
   * Tab comes back to the button), or, when none came, to the oldest shout.
   */
  async load (pressed: boolean): Promise<void> {
    if (this.element.hidden && this.loading === undefined) return
    const before = this.live.shouts.length
    this.loading ??= this.next()
    const added = await this.loading
    if (!pressed) return
    this.announce(added > 0 ? this.t('widget.olderLoaded', { count: added }) : this.t('widget.noOlder'))
    const items = this.element.parentElement?.querySelectorAll<HTMLElement>('li[data-id]')
    if (items === undefined || items.length === 0) return
    if (added > 0) items[Math.min(before, items.length - 1)]?.focus()
    else if (this.element.hidden) items[items.length - 1]?.focus()
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
