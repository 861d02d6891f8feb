import { h } from '../../../sdk/ui.js'
import type { shoutboxStrings } from '../strings.js'
import type * as emojiModule from './emoji.js'

type EmojiModule = typeof emojiModule

let loading: Promise<EmojiModule> | undefined
/** The bundled set, fetched the first time it is wanted (it is a chunk of its own). */
const emojiSet = (): Promise<EmojiModule> => (loading ??= import('./emoji.js'))

/** `text` with its `:shortcodes:` turned into emoji; the set is fetched only when the text has one. */
export async function expandShortcodes (text: string): Promise<string> {
  if (!/:[a-z0-9_+-]+:/i.test(text)) return text
  return (await emojiSet()).withEmoji(text)
}

/**
 * The composer's emoji picker: a button that opens a search box over the whole bundled set,
 * grouped. By keyboard: the search box takes the focus, ArrowDown goes into the emoji, the
 * arrow keys move (Up and Down by a row), Home and End go to the ends, Enter inserts the
 * one focused at the composer's caret, Escape closes and goes back to the composer. One
 * emoji at a time is in the Tab order, so Tab leaves the grid.
 */
export class EmojiPicker {
  readonly element: HTMLElement
  private readonly button: HTMLButtonElement
  private readonly panel: HTMLElement
  private readonly search: HTMLInputElement
  private readonly grid: HTMLElement
  private readonly status: HTMLElement
  private built = false

  constructor (private readonly t: ReturnType<typeof shoutboxStrings>, private readonly area: HTMLTextAreaElement) {
    this.button = h('button', {
      type: 'button', class: 'shoutbox-action shoutbox-emoji-open', 'aria-expanded': 'false', 'aria-controls': 'shoutbox-emoji',
      'aria-label': t('emoji.open'), title: t('emoji.open'), onclick: () => void this.toggle()
    }, h('span', { 'aria-hidden': 'true' }, '😀')) as HTMLButtonElement
    this.search = h('input', { type: 'search', id: 'shoutbox-emoji-search', autocomplete: 'off', placeholder: t('emoji.searchHint') }) as HTMLInputElement
    this.grid = h('div', { class: 'shoutbox-emoji-grid' })
    this.status = h('p', { class: 'shoutbox-sr', role: 'status', 'aria-live': 'polite' })
    this.panel = h('div', { class: 'shoutbox-emoji', id: 'shoutbox-emoji', role: 'dialog', 'aria-label': t('emoji.title'), hidden: true },
      h('label', { for: 'shoutbox-emoji-search', class: 'shoutbox-sr' }, t('emoji.search')), this.search, this.status, this.grid)
    this.element = h('div', { class: 'shoutbox-emoji-box' }, this.button, this.panel)
    this.search.addEventListener('input', () => void this.fill())
    this.search.addEventListener('keydown', event => {
      if (event.key === 'ArrowDown' || (event.key === 'Enter' && this.search.value !== '')) {
        event.preventDefault()
        const first = this.choices()[0]
        if (event.key === 'Enter') first?.click()
        else this.focusChoice(first)
      }
    })
    this.grid.addEventListener('keydown', event => this.move(event))
    this.element.addEventListener('keydown', event => {
      if (event.key !== 'Escape' || this.panel.hidden) return
      event.preventDefault()
      event.stopPropagation()
      this.close()
      this.area.focus()
    })
  }

  async toggle (open = this.panel.hidden): Promise<void> {
    if (!open) {
      this.close()
      return
    }
    this.panel.hidden = false
    this.button.setAttribute('aria-expanded', 'true')
    this.search.focus()
    if (!this.built) await this.fill()
  }

  close (): void {
    this.panel.hidden = true
    this.button.setAttribute('aria-expanded', 'false')
  }

  /** The grid: every group, or what the search finds. */
  private async fill (): Promise<void> {
    const { EMOJI_GROUPS, searchEmoji } = await emojiSet()
    this.built = true
    const query = this.search.value.trim()
    const { t } = this
    if (query === '') {
      this.grid.replaceChildren(...EMOJI_GROUPS.map((group, i) => h('section', { class: 'shoutbox-emoji-group', 'aria-labelledby': `shoutbox-emoji-group-${i}` },
        h('h3', { id: `shoutbox-emoji-group-${i}` }, t(`emoji.group.${group.name}`)),
        h('div', { class: 'shoutbox-emoji-row', role: 'group', 'aria-labelledby': `shoutbox-emoji-group-${i}` }, ...group.emoji.map(entry => this.choice(entry))))))
      this.status.textContent = ''
    } else {
      const found = searchEmoji(query)
      this.grid.replaceChildren(found.length === 0
        ? h('p', { class: 'shoutbox-emoji-none' }, t('emoji.none'))
        : h('div', { class: 'shoutbox-emoji-row', role: 'group', 'aria-label': t('emoji.found') }, ...found.map(entry => this.choice(entry))))
      this.status.textContent = t('emoji.count', { count: found.length })
    }
    const first = this.choices()[0]
    if (first !== undefined) first.tabIndex = 0
  }

  private choice (entry: { emoji: string, names: readonly string[], description: string }): HTMLElement {
    return h('button', {
      type: 'button', class: 'shoutbox-emoji-choice', tabindex: -1, 'aria-label': entry.description, title: `:${entry.names[0]}:`,
      onclick: () => this.insert(entry.emoji)
    }, entry.emoji)
  }

  private choices (): HTMLButtonElement[] {
    return [...this.grid.querySelectorAll<HTMLButtonElement>('.shoutbox-emoji-choice')]
  }

  private focusChoice (choice: HTMLButtonElement | undefined): void {
    if (choice === undefined) return
    for (const other of this.grid.querySelectorAll<HTMLButtonElement>('[tabindex="0"]')) other.tabIndex = -1
    choice.tabIndex = 0
    choice.focus()
  }

  /** The arrow keys in the grid; Up and Down go to the emoji nearest above or below on screen. */
  private move (event: KeyboardEvent): void {
    const choices = this.choices()
    const at = choices.indexOf(document.activeElement as HTMLButtonElement)
    if (at === -1) return
    let next: number | undefined
    if (event.key === 'ArrowRight') next = Math.min(at + 1, choices.length - 1)
    else if (event.key === 'ArrowLeft') next = Math.max(at - 1, 0)
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = choices.length - 1
    else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') next = this.vertical(choices, at, event.key === 'ArrowDown' ? 1 : -1)
    if (next === undefined) return
    event.preventDefault()
    if (next === -1) this.search.focus()
    else this.focusChoice(choices[next])
  }

  /** The index of the choice a row below (1) or above (-1) `at`, nearest in x; -1 above the first row (the search box). */
  private vertical (choices: HTMLButtonElement[], at: number, direction: 1 | -1): number {
    const here = choices[at]!.getBoundingClientRect()
    let best = -1
    let bestDistance = Infinity
    let rowTop: number | undefined
    for (let i = at + direction; i >= 0 && i < choices.length; i += direction) {
      const box = choices[i]!.getBoundingClientRect()
      if (Math.abs(box.top - here.top) < 2) continue
      rowTop ??= box.top
      if (Math.abs(box.top - rowTop) >= 2) break
      const distance = Math.abs(box.left - here.left)
      if (distance < bestDistance) {
        best = i
        bestDistance = distance
      }
    }
    return best === -1 && direction === 1 ? at : best
  }

  /** `emoji` at the composer's caret (in place of a selection), which keeps the focus. */
  private insert (emoji: string): void {
    const { area } = this
    area.setRangeText(emoji, area.selectionStart, area.selectionEnd, 'end')
    area.dispatchEvent(new Event('input', { bubbles: true }))
    this.close()
    area.focus()
  }
}
