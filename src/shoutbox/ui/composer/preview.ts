import { formatted } from '../../../sdk/rich-text.js'
import { h } from '../../../sdk/ui.js'
import { shoutText } from '../shared/shout-view.js'
import { shoutboxStrings } from '../strings.js'

/**
 * Under a composer: the shout as it will be shown, drawn by the same renderer as the
 * board, while the text holds anything that is not plain words (formatting, a link);
 * hidden otherwise. Kept current as one types; `update` after the text is set by code.
 * Not a live region: a screen reader reads it when asked, not at every key.
 */
export function composerPreview (area: HTMLTextAreaElement, locale: string, id: string): { readonly element: HTMLElement, update (): void } {
  const t = shoutboxStrings(locale)
  const text = h('p', { class: 'text' })
  const element = h('div', { class: 'shoutbox-preview', id, role: 'group', 'aria-labelledby': `${id}-label`, hidden: true },
    h('p', { class: 'shoutbox-preview-label', id: `${id}-label` }, t('widget.preview')), text)
  let drawn: string | undefined
  const update = (): void => {
    const value = area.value
    if (value === drawn) return
    drawn = value
    const tree = formatted(value)
    const plain = tree.length === 0 || (tree.length === 1 && tree[0]!.kind === 'text')
    element.hidden = plain
    text.replaceChildren(plain ? '' : shoutText(value, locale))
  }
  area.addEventListener('input', update)
  update()
  return { element, update }
}
